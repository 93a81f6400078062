import ChronicleLog
import Foundation

/// The ids and timestamps of a generated history, drawn as ``DatasetGenerator`` draws the todo
/// data set's: a clock that starts at 2026-01-01 and moves 0–2 ms per event, and time-ordered
/// ids (UUIDv7: 48 bits of milliseconds, a 12-bit counter, 62 seeded random bits).
struct EventStamps {
    /// The clock, in milliseconds since 1970.
    private(set) var clock: Int64 = 1_767_225_600_000   // 2026-01-01T00:00:00Z
    private var sequence: UInt16 = 0
    private var lastMillisecond: Int64 = -1

    /// Moves the clock on by 0–2 ms and returns it: the next event's timestamp.
    mutating func tick(_ rng: inout SplitMix64) -> Int64 {
        clock += Int64(rng.below(3))
        return clock
    }

    /// The next id, after every id drawn before.
    mutating func nextUUID(_ rng: inout SplitMix64) -> UUID {
        if clock > lastMillisecond {
            lastMillisecond = clock
            sequence = 0
        } else if sequence < 0xFFF {
            sequence += 1
        } else {
            lastMillisecond += 1
            sequence = 0
        }
        return UUIDv7.make(milliseconds: UInt64(lastMillisecond), sequence: sequence, random: rng.next())
    }
}
