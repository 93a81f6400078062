import ChronicleTestSupport
import Foundation
import Testing
import ChronicleTodoDomain

struct CalendarDayTests {
    @Test(arguments: [
        ("2026-03-05", 2026, 3, 5),
        ("2024-02-29", 2024, 2, 29),
        ("2000-02-29", 2000, 2, 29),
        ("0001-01-01", 1, 1, 1),
        ("9999-12-31", 9999, 12, 31),
        ("2026-04-30", 2026, 4, 30),
        ("2026-12-31", 2026, 12, 31),
    ])
    func parsesValidDays(text: String, year: Int, month: Int, dayOfMonth: Int) throws {
        let parsed = try CalendarDay(parsing: text)
        #expect(parsed.year == year)
        #expect(parsed.month == month)
        #expect(parsed.day == dayOfMonth)
        #expect(parsed.description == text)
        #expect(try CalendarDay(year: year, month: month, day: dayOfMonth) == parsed)
    }

    @Test(arguments: [
        "2026-02-30", "2025-02-29", "1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10",
        "2026-01-00", "2026-01-32", "0000-01-01",
        "2026-1-05", "2026-01-5", "26-01-05", "02026-01-05",
        "abcd-ef-gh", "2026/03/05", "20260305", "2026-03-05T00:00", "",
        " 2026-03-05", "2026-03-05 ", "2026-03-05x", "x2026-03-05", "2026-03-05\n",
        "+026-01-05", "-026-01-05", "2026-+1-05", "2026-03-0\u{0}",
        "２０２６-03-05", "2026-٠٣-05",
    ])
    func rejectsInvalidText(text: String) {
        #expect(throws: DomainError.invalidDate(text)) {
            try CalendarDay(parsing: text)
        }
    }

    @Test func leapYearsFollowTheGregorianRules() {
        #expect((try? CalendarDay(parsing: "2024-02-29")) != nil)
        #expect((try? CalendarDay(parsing: "2000-02-29")) != nil)
        #expect((try? CalendarDay(parsing: "2025-02-29")) == nil)
        #expect((try? CalendarDay(parsing: "2100-02-29")) == nil)
        #expect((try? CalendarDay(parsing: "2025-02-28")) != nil)
    }

    @Test func partsInitializerRejectsImpossibleDaysWithPaddedText() {
        #expect(throws: DomainError.invalidDate("2026-02-30")) { try CalendarDay(year: 2026, month: 2, day: 30) }
        #expect(throws: DomainError.invalidDate("0000-01-01")) { try CalendarDay(year: 0, month: 1, day: 1) }
        #expect(throws: DomainError.invalidDate("10000-01-01")) { try CalendarDay(year: 10_000, month: 1, day: 1) }
        #expect(throws: DomainError.invalidDate("2026-00-01")) { try CalendarDay(year: 2026, month: 0, day: 1) }
        #expect(throws: DomainError.invalidDate("2026-01-00")) { try CalendarDay(year: 2026, month: 1, day: 0) }
    }

    @Test func descriptionIsZeroPadded() throws {
        #expect(try CalendarDay(year: 7, month: 3, day: 5).description == "0007-03-05")
    }

    @Test func ordersChronologically() {
        let texts = ["2027-01-01", "2026-12-31", "2026-02-01", "2026-01-31", "2026-01-02", "0999-12-31"]
        let sorted = texts.map(day).sorted().map(\.description)
        #expect(sorted == ["0999-12-31", "2026-01-02", "2026-01-31", "2026-02-01", "2026-12-31", "2027-01-01"])
        #expect(day("2026-01-31") < day("2026-02-01"))
        #expect(!(day("2026-02-01") < day("2026-02-01")))
        #expect(day("2026-02-01") == day("2026-02-01"))
    }

    @Test func codableAsThePlainString() throws {
        let original = day("2024-02-29")
        let data = try JSONEncoder().encode([original])
        #expect(String(decoding: data, as: UTF8.self) == #"["2024-02-29"]"#)
        #expect(try JSONDecoder().decode([CalendarDay].self, from: data) == [original])
    }

    @Test(arguments: [#"["2026-02-30"]"#, #"["2026-1-05"]"#, "[20260305]", "[null]"])
    func decodingRejectsInvalidDays(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([CalendarDay].self, from: Data(json.utf8))
        }
    }

    @Test func addingDaysCrossesMonthAndYearBoundaries() {
        #expect(day("2024-02-28").adding(days: 1) == day("2024-02-29"))
        #expect(day("2025-02-28").adding(days: 1) == day("2025-03-01"))
        #expect(day("2025-12-31").adding(days: 1) == day("2026-01-01"))
        #expect(day("2026-01-01").adding(days: -1) == day("2025-12-31"))
        #expect(day("2026-03-05").adding(days: 0) == day("2026-03-05"))
        #expect(day("2024-01-01").adding(days: 366) == day("2025-01-01"))
        #expect(day("0001-01-01").adding(days: 3_652_058) == day("9999-12-31"))
    }

    /// Foundation switches to the Julian calendar before October 1582, so the
    /// comparison stays after that.
    @Test func addingDaysAgreesWithFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let epoch = try #require(calendar.date(from: DateComponents(year: 1970, month: 1, day: 1)))
        let start = day("1970-01-01")
        var random = TestSeed.generator(for: "CalendarDayTests.addingDays")
        for _ in 0..<2_000 {
            let offset = Int.random(in: -140_000...2_900_000, using: &random)
            let expected = try #require(calendar.date(byAdding: .day, value: offset, to: epoch))
            let parts = calendar.dateComponents([.year, .month, .day], from: expected)
            let actual = start.adding(days: offset)
            #expect(actual.year == parts.year && actual.month == parts.month && actual.day == parts.day,
                    "offset \(offset): got \(actual), Foundation says \(parts)")
            #expect(actual.adding(days: -offset) == start)
        }
    }
}
