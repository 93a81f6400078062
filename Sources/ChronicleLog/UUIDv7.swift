import Foundation
import Synchronization

/// Time-ordered UUIDs (RFC 9562, version 7), monotonic within this process.
///
/// New ids sort after older ones, so the log's id index always grows at its end.
public enum UUIDv7 {
    private static let state = Mutex<(milliseconds: UInt64, sequence: UInt16)>((0, 0))

    /// A new UUIDv7: 48 bits of Unix milliseconds, a 12-bit counter, 62 random bits.
    public static func make(now: Date = Date()) -> UUID {
        let wall = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        let (ms, seq) = state.withLock { s -> (UInt64, UInt16) in
            if wall > s.milliseconds {
                s = (wall, UInt16.random(in: 0..<0x400))
            } else if s.sequence < 0xFFF {
                s.sequence += 1
            } else {
                s = (s.milliseconds + 1, 0)
            }
            return s
        }
        return make(milliseconds: ms, sequence: seq, random: UInt64.random(in: 0...UInt64.max))
    }

    /// The UUIDv7 of the given fields, for callers that keep their own clock (a seeded data
    /// generator): the low 48 bits of `milliseconds`, the low 12 of `sequence`, the low 62
    /// of `random`, with the version and variant bits set.
    public static func make(milliseconds ms: UInt64, sequence seq: UInt16, random: UInt64) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: ms >> (40 - 8 * UInt64(i))) }
        bytes[6] = 0x70 | UInt8(seq >> 8 & 0x0F)
        bytes[7] = UInt8(truncatingIfNeeded: seq)
        var random = random
        for i in 8..<16 {
            bytes[i] = UInt8(truncatingIfNeeded: random)
            random >>= 8
        }
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
