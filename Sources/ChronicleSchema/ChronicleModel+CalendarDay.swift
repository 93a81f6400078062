extension ChronicleModel {
    /// The year, month and day `text` spells as `YYYY-MM-DD` (years 1 through 9999); nil unless
    /// it is exactly that and names a day its month has: how a model reads a day field's value.
    /// Read in place, with no copy of the text.
    ///
    /// ```swift
    /// ChronicleModel.calendarDay("2028-02-29")   // (2028, 2, 29)
    /// ChronicleModel.calendarDay("2027-02-29")   // nil
    /// ```
    public static func calendarDay(_ text: String) -> (year: Int, month: Int, day: Int)? {
        text.utf8.withContiguousStorageIfAvailable { calendarDay(utf8: $0) } ?? calendarDay(utf8: Array(text.utf8))
    }

    private static func calendarDay<Bytes: RandomAccessCollection<UInt8>>(utf8 bytes: Bytes) -> (year: Int, month: Int, day: Int)?
    where Bytes.Index == Int {
        guard let (year, month, day) = dayDigits(utf8: bytes), isCalendarDay(year: year, month: month, day: day) else { return nil }
        return (year, month, day)
    }

    /// Whether `year` (1 through 9999), `month` and `day` name a day of the Gregorian calendar.
    package static func isCalendarDay(year: Int, month: Int, day: Int) -> Bool {
        (1...9999).contains(year) && (1...12).contains(month) && day >= 1 && day <= daysIn(month: month, of: year)
    }

    /// The numbers `bytes` spells in the shape `YYYY-MM-DD` (ten characters, digits and two
    /// hyphens), whether or not they name a day; nil for any other shape. The stored read
    /// model keeps such a text as these numbers (``StoredValue``).
    package static func dayDigits<Bytes: RandomAccessCollection<UInt8>>(utf8 bytes: Bytes) -> (year: Int, month: Int, day: Int)?
    where Bytes.Index == Int {
        guard bytes.count == 10 else { return nil }
        let start = bytes.startIndex
        guard bytes[start + 4] == UInt8(ascii: "-"), bytes[start + 7] == UInt8(ascii: "-") else { return nil }
        func number(_ offsets: Range<Int>) -> Int? {
            var value = 0
            for offset in offsets {
                let byte = bytes[start + offset]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        return (year, month, day)
    }

    /// How many days `month` (1 through 12) of `year` has, in the Gregorian calendar.
    public static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
