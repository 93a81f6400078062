import ChronicleSchema
import Foundation

/// A day of the proleptic Gregorian calendar, without time or time zone.
///
/// Deadlines and stats are about days, not instants, so they must not shift
/// with the device's time zone. The text form is strict: exactly `YYYY-MM-DD`
/// with ASCII digits, years 0001–9999, and a day that exists in that month.
///
/// ```swift
/// let day = try CalendarDay(parsing: "2024-02-29")   // leap day: fine
/// day.adding(days: 1).description                   // "2024-03-01"
/// try CalendarDay(parsing: "2026-02-30")            // throws .invalidDate
/// ```
///
/// It encodes as that plain string in JSON.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The year, 1...9999.
    public var year: Int { Int(storedYear) }
    /// The month, 1 (January) to 12.
    public var month: Int { Int(storedMonth) }
    /// The day of the month, from 1.
    public var day: Int { Int(storedDay) }

    // Four bytes, not three `Int`s: a todo holds a day, and a rebuild holds a hundred
    // thousand todos or more in memory at once, each twice (as stored and as folded).
    private let storedYear: UInt16
    private let storedMonth: UInt8
    private let storedDay: UInt8

    /// The years the four-digit text form can express.
    static let yearRange = 1...9999

    /// Creates a day from its parts.
    ///
    /// - throws: ``DomainError/invalidDate(_:)`` when the parts do not name a
    ///   real day in years 1...9999 (for example February 30).
    public init(year: Int, month: Int, day: Int) throws(DomainError) {
        guard ChronicleModel.isCalendarDay(year: year, month: month, day: day) else {
            throw .invalidDate(Self.format(year: year, month: month, day: day))
        }
        self.init(validYear: year, month: month, day: day)
    }

    /// Parses exactly `YYYY-MM-DD`.
    ///
    /// No surrounding whitespace, signs, or short fields (`2026-1-05`) are accepted.
    /// - throws: ``DomainError/invalidDate(_:)`` carrying `text`.
    public init(parsing text: String) throws(DomainError) {
        guard let (year, month, day) = ChronicleModel.calendarDay(text) else { throw .invalidDate(text) }
        self.init(validYear: year, month: month, day: day)
    }

    /// Trusted initializer for parts already known to be valid (`ChronicleModel.isCalendarDay(year:month:day:)`):
    /// they fit the stored widths.
    init(validYear year: Int, month: Int, day: Int) {
        storedYear = UInt16(year)
        storedMonth = UInt8(month)
        storedDay = UInt8(day)
    }

    /// `YYYY-MM-DD`, zero-padded.
    public var description: String {
        Self.format(year: year, month: month, day: day)
    }

    /// The day `days` later (or earlier when negative).
    ///
    /// ```swift
    /// try CalendarDay(parsing: "2025-12-31").adding(days: 1)   // 2026-01-01
    /// ```
    ///
    /// Traps if the result falls outside years 1...9999, like integer overflow.
    public func adding(days: Int) -> CalendarDay {
        let (target, overflow) = dayNumber.addingReportingOverflow(days)
        precondition(!overflow, "CalendarDay.adding(days:) overflowed")
        let (year, month, day) = Self.civil(fromDayNumber: target)
        precondition(Self.yearRange.contains(year), "CalendarDay.adding(days:) left years 1...9999")
        return CalendarDay(validYear: year, month: month, day: day)
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    // MARK: - Codable

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    // MARK: - Calendar arithmetic

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Inverse of ``dayNumber`` (Howard Hinnant's `civil_from_days`).
    static func civil(fromDayNumber number: Int) -> (year: Int, month: Int, day: Int) {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    // MARK: - Text

    private static func format(year: Int, month: Int, day: Int) -> String {
        "\(padded(year, to: 4))-\(padded(month, to: 2))-\(padded(day, to: 2))"
    }

    private static func padded(_ value: Int, to width: Int) -> String {
        let digits = String(value)
        guard value >= 0, digits.count < width else { return digits }
        return String(repeating: "0", count: width - digits.count) + digits
    }
}
