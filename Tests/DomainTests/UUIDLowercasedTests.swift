import Foundation
import Testing
import Domain

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
