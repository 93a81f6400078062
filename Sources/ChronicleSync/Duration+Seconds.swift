import Foundation

extension Duration {
    /// In seconds, as `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// `250 ms`, `1.5 s`, `2 min`.
    var formatted: String {
        let ms = seconds * 1000
        if ms < 1000 { return "\(Int(ms.rounded())) ms" }
        if ms < 120_000 {
            let value = (ms / 100).rounded() / 10
            return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
        }
        return "\(Int((ms / 60_000).rounded())) min"
    }
}
