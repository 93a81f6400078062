import Foundation
import Testing
import ChronicleTodoDomain

struct DailyStatTests {
    @Test func encodesDateTotalCompleted() throws {
        let stat = DailyStat(date: day("2026-03-05"), total: 3, completed: 1)
        #expect(try jsonString(stat) == #"{"completed":1,"date":"2026-03-05","total":3}"#)
        #expect(Set(try jsonObject(JSONEncoder().encode(stat)).keys) == ["date", "total", "completed"])
    }

    @Test func roundTripsThroughJSON() throws {
        let stat = DailyStat(date: day("2024-02-29"), total: 7, completed: 7)
        #expect(try JSONDecoder().decode(DailyStat.self, from: JSONEncoder().encode(stat)) == stat)
    }

    @Test func rejectsAnInvalidDate() {
        let json = #"{"date":"2026-02-30","total":1,"completed":0}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DailyStat.self, from: Data(json.utf8)) }
    }

    @Test func identifiedByItsDate() {
        #expect(DailyStat(date: day("2026-03-05"), total: 1, completed: 0).id == day("2026-03-05"))
    }
}
