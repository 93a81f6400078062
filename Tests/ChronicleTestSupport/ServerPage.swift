import ChronicleLog
import Foundation

/// A page of pulled events as a sync server hands it out: every event of `log` given back at
/// its position there as its server position (as if pushed in order to a server that had
/// nothing), then `others` (another device's writes), at the positions after them.
public func serverPage(givingBack log: EventLog, then others: [ForeignEvent] = []) throws -> [ForeignEvent] {
    let own = try log.read(after: 0, limit: .max)
    var page = own.enumerated().map { index, event in event.foreign(upstreamPosition: UInt64(index + 1)) }
    for (index, var other) in others.enumerated() {
        other.upstreamPosition = UInt64(own.count + index + 1)
        page.append(other)
    }
    return page
}
