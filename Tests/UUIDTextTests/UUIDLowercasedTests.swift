import Foundation
import Testing
import UUIDText

struct UUIDLowercasedTests {
    @Test func isTheUppercaseStringLowercased() {
        let id = UUID(uuidString: "1F0E5C2A-ABCD-4EF0-8000-00000000ABCD")!
        #expect(id.lowercasedString == "1f0e5c2a-abcd-4ef0-8000-00000000abcd")
    }

    @Test func roundTripsToTheSameUUID() {
        for _ in 0..<100 {
            let id = UUID()
            #expect(UUID(uuidString: id.lowercasedString) == id)
            #expect(id.lowercasedString == id.lowercasedString.lowercased())
        }
    }
}

@Suite("UUID(hyphenated:)")
struct UUIDHyphenatedTests {
    @Test("parses both cases and agrees with Foundation on random ids")
    func agreesWithFoundation() {
        for _ in 0..<1000 {
            let id = UUID()
            #expect(UUID(hyphenated: id.uuidString) == id)
            #expect(UUID(hyphenated: id.lowercasedString) == id)
            #expect(id.lowercasedString == id.uuidString.lowercased())
        }
    }

    @Test("reads a substring in place")
    func substring() {
        let id = UUID()
        let framed = "<\(id.lowercasedString)>"
        #expect(UUID(hyphenated: framed.dropFirst().dropLast()) == id)
        #expect(UUID(hyphenated: framed.dropFirst()) == nil)
    }

    @Test("rejects anything but the 36-character hyphenated form",
          arguments: ["", "1f0e", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4aé", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a\u{0}\u{0}", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5bb",
                      "1f0e8c2a3b4d-4e5f-8a9b-0c1d2e3f4a5b-", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5g", "{1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a}"])
    func rejects(text: String) {
        #expect(UUID(hyphenated: text) == nil)
        #expect(UUID(uuidString: text) == nil)
    }
}

@Suite("UUID(canonical:) and String.sameBytes(as:)")
struct CanonicalTextTests {
    @Test("the canonical form is the lowercase hyphenated one only")
    func canonical() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(UUID(canonical: id.lowercasedString) == id)
            #expect(UUID(canonical: id.uuidString) == nil)   // uppercase
            #expect(UUID(canonical: id.uuidString.lowercased().replacingOccurrences(of: "-", with: "")) == nil)
        }
        let mixed = "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4A5b"
        #expect(UUID(hyphenated: mixed) != nil)
        #expect(UUID(canonical: mixed) == nil)
    }

    @Test("same bytes, not canonical equivalence")
    func sameBytes() {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)                  // Swift's ==
        #expect(!composed.sameBytes(as: decomposed))
        #expect(composed.sameBytes(as: "caf\u{E9}"))
        #expect("".sameBytes(as: ""))
        #expect(!"a".sameBytes(as: ""))
        #expect(!"TodoCreated".sameBytes(as: "TodoCreatee"))
        #expect(Optional<String>.none.sameBytes(as: nil))
        #expect(!Optional("a").sameBytes(as: nil))
    }
}
