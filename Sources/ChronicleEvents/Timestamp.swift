import Foundation

/// ISO 8601 UTC timestamps with milliseconds (`2026-11-22T02:30:00.123Z`), fast and locale-free.
public enum Timestamp {
    /// Formats Unix milliseconds.
    public static func format(milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let ms = Int(milliseconds - seconds * 1000)
        var days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        // Civil-from-days (Howard Hinnant).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        if (0...9999).contains(year) {
            // The common case, without the intermediate strings: YYYY-MM-DDTHH:MM:SS.fffZ.
            return String(unsafeUninitializedCapacity: 24) { buffer in
                var index = 0
                func put(_ value: Int, _ width: Int) {
                    var divisor = 1
                    for _ in 1..<width { divisor *= 10 }
                    for _ in 0..<width {
                        buffer[index] = UInt8(ascii: "0") + UInt8(value / divisor % 10)
                        index += 1
                        divisor /= 10
                    }
                }
                func put(_ ascii: Unicode.Scalar) {
                    buffer[index] = UInt8(ascii: ascii)
                    index += 1
                }
                put(year, 4); put("-"); put(month, 2); put("-"); put(day, 2); put("T")
                put(secondOfDay / 3600, 2); put(":"); put(secondOfDay / 60 % 60, 2); put(":")
                put(secondOfDay % 60, 2); put("."); put(ms, 3); put("Z")
                return index
            }
        }
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.f[f[f]]]Z` into Unix milliseconds; `nil` when malformed or
    /// not a real instant: a day the month does not have (`2026-02-29`, `2026-04-31`), a leap
    /// second (`23:59:60`) and more than 3 fraction digits are refused, never rewritten.
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
              b.last == 0x5A else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var ms = 0
        if b.count > 20 {
            guard b[19] == 0x2E, b.count - 21 >= 1, b.count - 21 <= 3, let fraction = number(20..<(b.count - 1)) else { return nil }
            ms = fraction * [100, 10, 1][b.count - 22]
        } else if b.count != 20 {
            return nil
        }
        // Days-from-civil (Howard Hinnant).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return (Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(ms)
    }

    /// The days of `month` in `year` (proleptic Gregorian).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
