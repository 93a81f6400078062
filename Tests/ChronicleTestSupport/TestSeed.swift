import Foundation
import Testing

/// The seeds of the randomized tests: a new one each run, printed, and replayable.
///
/// One seed is drawn per test process (or read from `CHRONICLE_SEED`, decimal or `0x` hex).
/// Each randomized test derives its own stream from it and a name of its own, so a test
/// replays alone or beside the others: `CHRONICLE_SEED=0x… swift test --filter NAME`.
public enum TestSeed {
    /// The run's seed: `CHRONICLE_SEED` when set, else a fresh random one.
    public static let run: UInt64 = {
        guard let text = ProcessInfo.processInfo.environment["CHRONICLE_SEED"], !text.isEmpty else {
            return UInt64.random(in: 0...UInt64.max)
        }
        guard let seed = parse(text) else {
            fatalError("CHRONICLE_SEED=\(text) is not a UInt64 (decimal, or hex after 0x)")
        }
        return seed
    }()

    /// The environment assignment that replays this run.
    public static var replay: String { "CHRONICLE_SEED=0x\(String(run, radix: 16))" }

    /// The seed of the test called `name`: the run's seed mixed with the name's bytes (FNV-1a).
    public static func seed(for name: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return run ^ hash
    }

    /// A generator for the test called `name`, after printing its seed and how to replay it.
    public static func generator(for name: String) -> SeededGenerator {
        let seed = seed(for: name)
        print("\(name): seed 0x\(String(seed, radix: 16)) (replay: \(replay))")
        return SeededGenerator(seed: seed)
    }

    /// A fuzz test's seed (from its name) and its cases per generator (`CHRONICLE_FUZZ_CASES`,
    /// else `defaultCases`), printed with how to replay them; nil, with an issue recorded,
    /// when the count is refused.
    public static func fuzz(_ name: String, defaultCases: Int) -> (seed: UInt64, cases: Int)? {
        do {
            let cases = try count("CHRONICLE_FUZZ_CASES", default: defaultCases)
            let seed = seed(for: name)
            print("\(name): seed 0x\(String(seed, radix: 16)), \(cases) cases per generator "
                + "(replay: \(replay) CHRONICLE_FUZZ_CASES=\(cases))")
            return (seed, cases)
        } catch {
            Issue.record(Comment(rawValue: String(describing: error)))
            return nil
        }
    }

    /// A positive count from the environment variable `variable`, else `fallback`.
    ///
    /// A count of 0 (or anything that is not a positive integer) is refused: a randomized
    /// test that runs no case would pass without testing anything.
    public static func count(_ variable: String, default fallback: Int) throws -> Int {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return fallback }
        guard let count = Int(text), count > 0 else { throw RefusedCount(variable: variable, text: text) }
        return count
    }

    /// A seed written in decimal, or in hex after `0x`.
    public static func parse(_ text: String) -> UInt64? {
        text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }
}

/// An environment count that would make a randomized test run nothing.
public struct RefusedCount: Error, CustomStringConvertible {
    public let variable: String
    public let text: String
    public var description: String { "\(variable)=\(text) is refused: a count must be a positive integer" }
}
