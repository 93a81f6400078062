import Foundation
import Testing
import ChronicleTodoDomain

struct UserTests {
    let ada = User(id: UUID(uuidString: "1F0E5C2A-0000-4000-8000-00000000ABCD")!, name: "Ada", age: 36)

    @Test func encodesExactlyIdNameAgeWithLowercaseId() throws {
        #expect(try jsonString(ada) == #"{"age":36,"id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":"Ada"}"#)
        #expect(Set(try jsonObject(JSONEncoder().encode(ada)).keys) == ["id", "name", "age"])
    }

    @Test func roundTripsThroughJSON() throws {
        let decoded = try JSONDecoder().decode(User.self, from: JSONEncoder().encode(ada))
        #expect(decoded == ada)
    }

    @Test func decodesIdsInEitherCase() throws {
        let upper = #"{"id":"1F0E5C2A-0000-4000-8000-00000000ABCD","name":"Ada","age":36}"#
        let lower = #"{"id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":"Ada","age":36}"#
        #expect(try JSONDecoder().decode(User.self, from: Data(upper.utf8)) == ada)
        #expect(try JSONDecoder().decode(User.self, from: Data(lower.utf8)) == ada)
    }

    @Test(arguments: [
        #"{"id":"not-a-uuid","name":"Ada","age":36}"#,
        #"{"id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":"Ada"}"#,
        #"{"id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":"Ada","age":"36"}"#,
        #"{"id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":null,"age":36}"#,
    ])
    func decodingRejectsMalformedUsers(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(User.self, from: Data(json.utf8)) }
    }

    @Test func aFractionalAgeIsBlamedOnTheAgeField() throws {
        let json = #"{"id":"1f0e5c2a-0000-4000-8000-00000000abcd","name":"Ada","age":36.5}"#
        do {
            _ = try JSONDecoder().decode(User.self, from: Data(json.utf8))
            Issue.record("decoded a fractional age")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["age"])
        }
    }

    @Test func identifiedByItsId() {
        #expect(ada.id == UUID(uuidString: "1f0e5c2a-0000-4000-8000-00000000abcd"))
    }
}
