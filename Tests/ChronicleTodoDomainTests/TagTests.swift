import Foundation
import Testing
import ChronicleTodoDomain

struct TagTests {
    let work = Tag(id: UUID(uuidString: "1F0E5C2A-0000-4000-8000-00000000ABCD")!, name: "Work", color: "#1a2b3c")

    // MARK: - JSON

    @Test func encodesExactlyIdNameColorWithLowercaseId() throws {
        #expect(try jsonString(work) == ##"{"color":"#1a2b3c","id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":"Work"}"##)
        #expect(Set(try jsonObject(JSONEncoder().encode(work)).keys) == ["id", "name", "color"])
    }

    @Test func roundTripsThroughJSONWithIdsInEitherCase() throws {
        #expect(try JSONDecoder().decode(Tag.self, from: JSONEncoder().encode(work)) == work)
        let upper = ##"{"id":"1F0E5C2A-0000-4000-8000-00000000ABCD","name":"Work","color":"#1a2b3c"}"##
        #expect(try JSONDecoder().decode(Tag.self, from: Data(upper.utf8)) == work)
    }

    @Test(arguments: [
        ##"{"id":"nope","name":"Work","color":"#1a2b3c"}"##,
        ##"{"id":"1f0e5c2a-0000-4000-8000-00000000abcd","color":"#1a2b3c"}"##,
        #"{"id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":"Work"}"#,
        #"{"id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":"Work","color":7}"#,
    ])
    func decodingRejectsMalformedTags(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ChronicleTodoDomain.Tag.self, from: Data(json.utf8)) }
    }

    @Test func identifiedByItsId() {
        #expect(work.id == UUID(uuidString: "1f0e5c2a-0000-4000-8000-00000000abcd"))
    }

    // MARK: - Folding

    @Test(arguments: [
        ("Work", "work"), ("Work", "WORK"), ("wOrK", "WORK"),
        ("Straße", "STRASSE"), ("Straße", "strasse"), ("STRAẞE", "strasse"),
        ("ΣΑΣ", "σας"), ("ΣΑΣ", "σασ"),
        ("ﬁle", "FILE"), ("Ａ", "ａ"),
        ("Ω", "\u{2126}"), ("\u{212B}", "å"),
        ("e\u{301}", "\u{E9}"), ("E\u{301}", "\u{E9}"),
        ("  Work\n", "work"),
    ])
    func namesThatFoldTogether(a: String, b: String) {
        #expect(Tag.foldedName(a) == Tag.foldedName(b), "\(a) / \(b)")
    }

    @Test(arguments: [
        ("Work", "Works"), ("ı", "i"), ("ı", "I"), ("İ", "i"), ("e", "é"), ("ss", "s"), ("Work", "W ork"),
    ])
    func namesThatStayApart(a: String, b: String) {
        #expect(Tag.foldedName(a) != Tag.foldedName(b), "\(a) / \(b)")
    }

    /// Default (non-Turkic) folding: "İ" becomes "i" with a combining dot above,
    /// "I" becomes plain "i", and dotless "ı" has no fold at all.
    @Test func turkishIFollowsTheDefaultFolding() {
        #expect(Tag.foldedName("İ").unicodeScalars.map(\.value) == [0x69, 0x307])
        #expect(Tag.foldedName("I") == "i")
        #expect(Tag.foldedName("ı") == "ı")
        #expect(Tag.foldedName("İstanbul") == Tag.foldedName("i\u{307}STANBUL"))
        #expect(Tag.foldedName("ISTANBUL") == "istanbul")
    }

    @Test func foldsFullyNotJustLowercased() {
        #expect(Tag.foldedName("Straße") == "strasse")
        #expect(Tag.foldedName("σας") == "σασ")
        #expect(Tag.foldedName("ﬃ") == "ffi")
        // lowercased() alone would keep these apart:
        #expect("Straße".lowercased() != "STRASSE".lowercased())
        #expect("ΣΑΣ".lowercased() != "σας".lowercased())
    }

    @Test func foldedNamesAreTrimmedAndComposed() {
        #expect(Tag.foldedName(" \t Work \n") == "work")
        // ΐ folds to ι + two combining marks; the key composes them again.
        #expect(Tag.foldedName("ΐ").unicodeScalars.map(\.value) == [0x390])
        #expect(Tag.foldedName("E\u{301}").unicodeScalars.map(\.value) == [0xE9])
        // U+0345 only folds to ι once it is decomposed out of ᾳ.
        #expect(Tag.foldedName("ᾼ") == Tag.foldedName("ᾳ"))
        #expect(Tag.foldedName("ᾳ") == "αι")
    }
}
