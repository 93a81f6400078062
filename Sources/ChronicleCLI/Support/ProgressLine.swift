import Foundation
import Synchronization

/// A progress line on stderr for long commands (rebuild, backup, import, export), redrawn in
/// place at most ten times a second, and only when stderr is a terminal: redirected to a
/// file or a pipe, it writes nothing (no `\r`, no escape codes), and stdout never sees it.
final class ProgressLine: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
        var started = ContinuousClock.now
    }
    private let state = Mutex(State())
    private let label: String
    private let unit: String
    private let visible: Bool

    /// A line that starts with `label` and counts `unit` (plural), e.g. `"import"`, `"events"`.
    init(_ label: String, unit: String = "events", visible: Bool = ProgressLine.stderrIsTerminal) {
        self.label = label
        self.unit = unit
        self.visible = visible
    }

    /// Whether stderr is a terminal (a person watching).
    static let stderrIsTerminal = isatty(STDERR_FILENO) != 0

    /// Shows `done` of `total` (nil: unknown), with the rate since the line began.
    func show(done: UInt64, total: UInt64?) {
        guard visible else { return }
        let now = ContinuousClock.now
        let started = state.withLock { s -> ContinuousClock.Instant? in
            if let last = s.lastDraw, now - last < .milliseconds(100), done < (total ?? .max) { return nil }
            s.lastDraw = now
            s.drawn = true
            return s.started
        }
        guard let started else { return }
        let seconds = max(0.001, Double((now - started).components.attoseconds) / 1e18 + Double((now - started).components.seconds))
        CLIOutput.progress(Self.render(label, unit: unit, done: done, total: total, perSecond: Double(done) / seconds))
    }

    /// Ends the line (a newline, when something was drawn since the last end).
    func finish() {
        if state.withLock({ state in defer { state.drawn = false }; return state.drawn }) { CLIOutput.note("") }
    }

    static func render(_ label: String, unit: String, done: UInt64, total: UInt64?, perSecond: Double,
                       remaining: Duration? = nil) -> String {
        var text = label
        if let total {
            let width = 24
            let fraction = total == 0 ? 1 : min(1, Double(done) / Double(total))
            let filled = Int(fraction * Double(width))
            text += " [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
            text += " \(Int(fraction * 100))%  \(grouped(done))/\(grouped(total)) \(unit)"
        } else {
            text += "  \(grouped(done)) \(unit)"
        }
        text += "  \(grouped(UInt64(max(0, perSecond)))) \(unit)/s"
        if let remaining {
            let seconds = remaining.components.seconds
            text += "  \(seconds / 60):\(String(format: "%02d", seconds % 60)) left"
        }
        return text
    }
}
