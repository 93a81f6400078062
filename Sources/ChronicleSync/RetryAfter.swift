import Foundation

/// The `Retry-After` response header: delay seconds or an HTTP date (RFC 9110 §10.2.3).
enum RetryAfter {
    /// The wait the header asks for, measured from `now`; `nil` when absent or unreadable.
    /// A date in the past means "now" (zero).
    static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Absurdly long values still parse: the policy caps them.
            return .seconds(text.utf8.count > 12 ? 1_000_000_000_000 : Int64(text) ?? 0)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds <= 0 ? .zero : .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// IMF-fixdate, with the obsolete RFC 850 and asctime forms a recipient must also accept.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
