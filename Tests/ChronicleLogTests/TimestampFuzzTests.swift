import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// Seeded fuzzing of the hand-written `Timestamp.parse(_:)` and `Timestamp.format(milliseconds:)`
/// against Foundation's `ISO8601DateFormatter` (UTC, `.withInternetDateTime`, plus
/// `.withFractionalSeconds` for text with a fraction: Foundation's reading is "either formatter
/// accepts", since the plain one refuses any fraction and the fractional one requires one).
///
/// The property, for every input: both refuse, or both accept and give the same instant to the
/// millisecond; except where Chronicle is documented to be stricter than Foundation, where the
/// test asserts that Chronicle refuses and counts the case under its class (`Strictness`, each
/// class listed and decided below; nothing is skipped). Inputs come from random valid instants
/// and calendar edges, mutations of valid text, random digits in the exact shape and random ASCII.
///
/// - `CHRONICLE_SEED=N` (decimal or `0x` hex): replay a run; every test prints its seed and the run's.
/// - `CHRONICLE_FUZZ_CASES=N`: inputs per generator (default 3,000; the round trip runs 10× that).
@Suite("Timestamp fuzzing against ISO8601DateFormatter", .timeLimit(.minutes(10)))
struct TimestampFuzzTests {
    @Test("random valid instants and calendar edges: Chronicle and Foundation give the same instant",
          .timeLimit(.minutes(5)))
    func validInstantsAgree() throws {
        let run = try #require(FuzzRun(name: "validInstantsAgree", salt: 0x0001))
        for text in Generate.calendarEdges() { run.check(text) }
        for _ in 0..<run.cases { run.check(Generate.validInstant(&run.random)) }
        run.finish()
    }

    @Test("mutated valid text: both refuse, or both agree, or Chronicle refuses a documented class",
          .timeLimit(.minutes(5)))
    func mutationsAgree() throws {
        let run = try #require(FuzzRun(name: "mutationsAgree", salt: 0x0002))
        for _ in 0..<run.cases { run.check(Generate.mutation(&run.random)) }
        run.finish()
    }

    @Test("random ASCII and random digits in the exact shape: both refuse, or both agree, or a documented class",
          .timeLimit(.minutes(5)))
    func randomTextAgrees() throws {
        let run = try #require(FuzzRun(name: "randomTextAgrees", salt: 0x0003))
        for _ in 0..<run.cases {
            run.check(Generate.randomASCII(&run.random))
            run.check(Generate.randomDigitsInShape(&run.random))
        }
        run.finish()
    }

    @Test("the decided exceptions: Chronicle refuses each documented class, whatever Foundation does",
          .timeLimit(.minutes(5)))
    func decidedExceptionsAreRefused() throws {
        let run = try #require(FuzzRun(name: "decidedExceptionsAreRefused", salt: 0x0004))
        let examples: [(String, Strictness)] = [
            ("2026-12-31T23:59:60Z", .leapSecond), ("2016-12-31T23:59:60.500Z", .leapSecond),
            ("2026-11-22T02:30:00.1234Z", .fractionOverThreeDigits), ("2026-11-22T02:30:00.123456789Z", .fractionOverThreeDigits),
            ("2026-11-22T02:30:00.Z", .fractionWithoutDigits),
            ("2026-11-22t02:30:00Z", .lowercaseDesignator), ("2026-11-22T02:30:00z", .lowercaseDesignator),
            ("2026-11-22T02:30:00.5z", .lowercaseDesignator),
            ("2026-11-22T02:30:00+00:00", .zoneOtherThanZ), ("2026-11-22T02:30:00-00:00", .zoneOtherThanZ),
            ("2026-11-22T02:30:00+01:00", .zoneOtherThanZ), ("2026-11-22T02:30:00-0100", .zoneOtherThanZ),
            ("2026-11-22T02:30:00GMT", .zoneOtherThanZ), ("2026-11-22T02:30:00", .zoneOtherThanZ),
            ("2026-02-29T00:00:00Z", .dayTheMonthLacks), ("1900-02-29T00:00:00Z", .dayTheMonthLacks),
            ("2026-04-31T00:00:00Z", .dayTheMonthLacks), ("1500-02-29T12:00:00Z", .dayTheMonthLacks),
            ("2026-12-01T24:00:00Z", .hour24), ("2026-12-31T24:30:00.000Z", .hour24),
            ("2026-1-01T00:00:00Z", .fieldWidth), ("20260-12-01T23:00:00Z", .fieldWidth), ("2026-12-01T3:00:00Z", .fieldWidth),
            (" 2026-12-01T23:00:00Z", .whitespaceOrTrailingText), ("2026-12-01T23:00:00Z\n", .whitespaceOrTrailingText),
            ("2026-12-01T23:00:00Zabc", .whitespaceOrTrailingText), ("2026-12-01T23:00:00ZZ", .whitespaceOrTrailingText),
            ("２０２６-12-01T23:00:00Z", .nonASCII), ("2026-12-01T23:00:00.０Z", .nonASCII),
            ("2026/12/01T23:00:00Z", .otherShapeDeviation), ("2026-12-01T23.00.00Z", .otherShapeDeviation),
            ("2026-12-01T23:00:00.-5Z", .otherShapeDeviation), ("2026-12-01T23:00:00.5e1Z", .otherShapeDeviation),
        ]
        for (text, expected) in examples {
            // The classifier is the test's own reading of the documented contract; check it too.
            guard case .refused(let found) = Spec.verdict(text) else {
                Issue.record("the spec classifier calls \(text.debugDescription) well formed; expected \(expected)")
                continue
            }
            #expect(found == expected, "classifier: \(text.debugDescription)")
            run.check(text)
        }
        run.finish()
    }

    @Test("format then parse is the identity over 0001–9999, and format matches Foundation's formatter",
          .timeLimit(.minutes(5)))
    func formatRoundTrips() throws {
        let run = try #require(FuzzRun(name: "formatRoundTrips", salt: 0x0005))
        let lowest: Int64 = -62_135_596_800_000 // 0001-01-01T00:00:00.000Z
        let highest: Int64 = 253_402_300_799_999 // 9999-12-31T23:59:59.999Z
        let day: Int64 = 86_400_000
        var milliseconds: [Int64] = [lowest, highest, 0, -1, 1, -day, day - 1, 951_782_400_000, 1_709_164_800_000 - 1]
        for _ in 0..<(run.cases * 10) {
            switch run.random.next() % 4 {
            case 0: // a day boundary, or a millisecond either side
                let boundary = Int64.random(in: (lowest / day)...(highest / day), using: &run.random) * day
                milliseconds.append(boundary + Int64.random(in: -1...1, using: &run.random))
            default:
                milliseconds.append(Int64.random(in: lowest...highest, using: &run.random))
            }
        }
        let foundationEvery = max(1, milliseconds.count / max(run.cases, 1))
        for (index, ms) in milliseconds.enumerated() where (lowest...highest).contains(ms) {
            let text = Timestamp.format(milliseconds: ms)
            let back = Timestamp.parse(text)
            if back != ms {
                run.problem("parse(format(\(ms))): format gives \(text.debugDescription), parse gives \(back.map(String.init) ?? "nil")")
                continue
            }
            guard index % foundationEvery == 0 || index < 9 else { continue }
            // Against Foundation: its parser reads the same instant, and its formatter writes the same text.
            run.check(text)
            let foundationText = run.reference.format(milliseconds: ms)
            if foundationText != text {
                run.problem("format(\(ms)): Chronicle \(text.debugDescription), Foundation \(foundationText.debugDescription)")
            }
        }
        run.finish()
    }
}

// MARK: - The decided classes

/// Why a text is not a timestamp, by the documented contract of `Timestamp.parse(_:)`: exactly
/// `YYYY-MM-DDTHH:MM:SS[.f[f[f]]]Z` in ASCII, naming a real instant (no day the month lacks, no
/// leap second), never rewritten. Chronicle must refuse every class. The `decided` classes are
/// the documented strictness where Foundation (on Linux, ICU underneath) may accept and read
/// something: for those, Foundation accepting is expected and counted. For the others Foundation
/// refuses as well, and Foundation accepting one fails the test as an undecided disagreement.
private enum Strictness: String, CaseIterable, Comparable {
    // Decided exceptions: Chronicle refuses; Foundation may accept.
    case leapSecond = "a leap second (SS = 60): refused, never rewritten (Foundation on Linux refuses too)"
    case fractionOverThreeDigits = "more than 3 fraction digits (Foundation truncates them)"
    case fractionWithoutDigits = "a dot without fraction digits"
    case lowercaseDesignator = "a lowercase 't' or 'z' (Foundation takes a lowercase 'z')"
    case zoneOtherThanZ = "an offset or zone other than 'Z' (+00:00, -0100, GMT, UTC…), or none"
    case dayTheMonthLacks = "a day the month lacks (02-29 in a common year, 04-31…): Foundation rolls it into the next month"
    case hour24 = "hour 24 (24:MM:SS): Foundation rolls it into the next day; Chronicle never rewrites"
    case fieldWidth = "a field with too few or too many digits (2026-1-01, T3:00:00, 20260-…): Foundation reads them"
    case whitespaceOrTrailingText = "whitespace around the text, or text after the 'Z': Foundation ignores it"
    case nonASCII = "non-ASCII characters, e.g. fullwidth digits: Foundation reads them as digits"
    case otherShapeDeviation = "any other deviation from the exact shape (other separators, signed or exponent fractions…)"
    // Not exceptions: Foundation is expected to refuse these too.
    case monthOutOfRange = "month 00 or 13–99"
    case dayOutOfRange = "day 00 or 32–99"
    case hourOutOfRange = "hour 25–99"
    case minuteOutOfRange = "minute 60–99"
    case secondOutOfRange = "second 61–99"

    var decided: Bool {
        switch self {
        case .monthOutOfRange, .dayOutOfRange, .hourOutOfRange, .minuteOutOfRange, .secondOutOfRange: false
        default: true
        }
    }

    var label: String { String(describing: self) }

    static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

private struct Fields {
    var year, month, day, hour, minute, second: Int
}

private enum Verdict {
    case wellFormed(Fields)
    case refused(Strictness)
}

/// The test's own reading of the documented contract (independent of the code under test).
private enum Spec {
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// `YYYY-MM-DDTHH:MM:SS` at the start, with `T` in either case.
    static func hasDateTimePrefix(_ b: [UInt8]) -> Bool {
        let pattern = Array("dddd-dd-ddTdd:dd:dd".utf8)
        guard b.count >= pattern.count else { return false }
        for (i, p) in pattern.enumerated() {
            switch p {
            case UInt8(ascii: "d"): guard isDigit(b[i]) else { return false }
            case UInt8(ascii: "T"): guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") else { return false }
            default: guard b[i] == p else { return false }
            }
        }
        return true
    }

    /// The fields of text of exactly the shape `YYYY-MM-DDTHH:MM:SS[.f[f[f]]]Z` (values unchecked).
    static func exactShape(_ b: [UInt8]) -> Fields? {
        guard hasDateTimePrefix(b), b[10] == UInt8(ascii: "T"), b.last == UInt8(ascii: "Z") else { return nil }
        switch b.count {
        case 20: break
        case 22...24:
            guard b[19] == UInt8(ascii: "."), b[20..<(b.count - 1)].allSatisfy(isDigit) else { return nil }
        default: return nil
        }
        func number(_ range: Range<Int>) -> Int { b[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        return Fields(year: number(0..<4), month: number(5..<7), day: number(8..<10),
                      hour: number(11..<13), minute: number(14..<16), second: number(17..<19))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func verdict(_ text: String) -> Verdict {
        let b = Array(text.utf8)
        guard let f = exactShape(b) else { return .refused(shapeDeviation(b)) }
        var problems: [Strictness] = []
        if !(1...12).contains(f.month) { problems.append(.monthOutOfRange) }
        if f.day == 0 || f.day > 31 { problems.append(.dayOutOfRange) }
        if (1...12).contains(f.month), (1...31).contains(f.day), f.day > daysIn(month: f.month, year: f.year) {
            problems.append(.dayTheMonthLacks)
        }
        if f.hour == 24 { problems.append(.hour24) } else if f.hour > 24 { problems.append(.hourOutOfRange) }
        if f.minute > 59 { problems.append(.minuteOutOfRange) }
        if f.second == 60 { problems.append(.leapSecond) } else if f.second > 60 { problems.append(.secondOutOfRange) }
        // Several problems at once: an undecided one wins, since Foundation should refuse it anyway.
        if let undecided = problems.first(where: { !$0.decided }) { return .refused(undecided) }
        if let decided = problems.first { return .refused(decided) }
        return .wellFormed(f)
    }

    /// Which documented rule a text off the exact shape breaks (first match wins).
    static func shapeDeviation(_ b: [UInt8]) -> Strictness {
        if b.contains(where: { $0 >= 0x80 }) { return .nonASCII }
        if let first = b.first, let last = b.last, isSpace(first) || isSpace(last) { return .whitespaceOrTrailingText }
        let upper = b.map { $0 == UInt8(ascii: "t") ? UInt8(ascii: "T") : $0 == UInt8(ascii: "z") ? UInt8(ascii: "Z") : $0 }
        if upper != b, exactShape(upper) != nil { return .lowercaseDesignator }
        if hasDateTimePrefix(b) {
            var i = 19
            var digits = 0
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                while i < b.count, isDigit(b[i]) { digits += 1; i += 1 }
                if digits == 0, i == b.count || b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                    return .fractionWithoutDigits
                }
                if digits == 0 { return .otherShapeDeviation } // a signed fraction, two dots…
            }
            let rest = Array(b[i...])
            if rest == [UInt8(ascii: "Z")] || rest == [UInt8(ascii: "z")] {
                return digits > 3 ? .fractionOverThreeDigits : .lowercaseDesignator
            }
            if let first = rest.first, first == UInt8(ascii: "Z") || first == UInt8(ascii: "z") { return .whitespaceOrTrailingText }
            if digits > 3 { return .fractionOverThreeDigits }
            if rest.isEmpty || rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-")
                || rest.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) {
                return .zoneOtherThanZ
            }
            return .otherShapeDeviation
        }
        // The separators right but a digit run of the wrong width: 2026-1-01T…, …T3:00:00Z, 20260-…
        var separators: [UInt8] = []
        var runs: [Int] = []
        var i = 0
        while i < b.count, separators.count < 5 {
            var run = 0
            while i < b.count, isDigit(b[i]) { run += 1; i += 1 }
            guard run > 0, i < b.count else { break }
            runs.append(run)
            separators.append(b[i] == UInt8(ascii: "t") ? UInt8(ascii: "T") : b[i])
            i += 1
        }
        if separators == Array("--T::".utf8), runs != [4, 2, 2, 2, 2] { return .fieldWidth }
        return .otherShapeDeviation
    }
}

// MARK: - Foundation's reading

private enum Outcome: Equatable, CustomStringConvertible {
    case refused
    case instant(Int64)
    /// Accepted, but beyond what Int64 milliseconds hold (Foundation reads years far past 9999).
    case beyondInt64(TimeInterval)

    init(_ milliseconds: Int64?) { self = milliseconds.map(Outcome.instant) ?? .refused }

    var description: String {
        switch self {
        case .refused: "refused"
        case .instant(let ms): "\(ms) ms (\(Timestamp.format(milliseconds: ms)))"
        case .beyondInt64(let seconds): "accepted, \(seconds) s since 1970 (beyond Int64 ms)"
        }
    }
}

/// Foundation's `ISO8601DateFormatter`, UTC. Its Gregorian calendar switches to the Julian one
/// before 1582-10-15 (checked on Linux: "0001-01-01T00:00:00Z" is two days off the proleptic
/// Gregorian instant), while ISO 8601, RFC 3339 and Chronicle are proleptic Gregorian. So for
/// years before 1583 the reference reads the same text 2000 years later (five whole 400-year
/// cycles: the same weekdays, the same leap years) and takes those 2000 years' days back off;
/// the test counts how often that differs from Foundation's direct, Julian reading.
private final class FoundationReference {
    static let twoThousandYears: Int64 = 5 * 146_097 * 86_400_000

    let plain = ISO8601DateFormatter()
    let fractional = ISO8601DateFormatter()
    private(set) var julianReadings = 0

    init() {
        let utc = TimeZone(identifier: "UTC")!
        plain.timeZone = utc
        plain.formatOptions = [.withInternetDateTime]
        fractional.timeZone = utc
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    }

    func read(_ text: String) -> Outcome {
        // Either formatter: the plain one refuses any fraction, the fractional one requires one.
        let first = text.contains(".") ? fractional : plain
        let second = first === plain ? fractional : plain
        guard let date = first.date(from: text) ?? second.date(from: text) else { return .refused }
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard let exact = Int64(exactly: ms) else { return .beyondInt64(date.timeIntervalSince1970) }
        return .instant(exact)
    }

    func outcome(for text: String) -> Outcome {
        var b = Array(text.utf8)
        guard let fields = Spec.exactShape(b), fields.year < 1583 else { return read(text) }
        b.replaceSubrange(0..<4, with: Array(pad(fields.year + 2000, 4).utf8))
        let shifted: Outcome
        switch read(String(decoding: b, as: UTF8.self)) {
        case .instant(let ms): shifted = .instant(ms - Self.twoThousandYears)
        case let other: shifted = other
        }
        if shifted != read(text) { julianReadings += 1 }
        return shifted
    }

    /// Foundation's text for an instant, with 3 fraction digits (proleptic Gregorian, as above).
    func format(milliseconds: Int64) -> String {
        guard milliseconds < -12_212_553_600_000 else { // 1583-01-01T00:00:00Z
            return fractional.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }
        let later = fractional.string(from: Date(timeIntervalSince1970: Double(milliseconds + Self.twoThousandYears) / 1000))
        guard let year = Int(later.prefix(4)) else { return later }
        return pad(year - 2000, 4) + later.dropFirst(4)
    }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

// MARK: - A run: seed, cases, checks, report

private final class FuzzRun {
    static let defaultCases = 3_000

    let name: String
    let seed: UInt64
    let cases: Int
    var random: SeededGenerator
    let reference = FoundationReference()
    private(set) var problems: [String] = []
    private var checked = 0
    private var bothAccepted = 0
    private var bothRefused = 0
    private var decided: [Strictness: (foundationAccepted: Int, foundationRefused: Int)] = [:]
    /// The first input of each decided class that Foundation accepted, with Foundation's reading.
    private var examples: [Strictness: String] = [:]
    private let started = ContinuousClock.now

    /// `nil` (with an issue recorded) when an environment variable does not parse.
    init?(name: String, salt: UInt64) {
        guard let (seed, cases) = TestSeed.fuzz("TimestampFuzzTests.\(name)", defaultCases: Self.defaultCases) else { return nil }
        self.name = name
        self.seed = seed
        self.cases = cases
        // Each test draws its own stream from the run's seed, so tests replay alone or together.
        random = SeededGenerator(seed: seed ^ (salt &* 0x9E37_79B9_7F4A_7C15))
    }

    func problem(_ text: String) { problems.append(text) }

    /// The property for one input.
    func check(_ text: String) {
        checked += 1
        let chronicle = Outcome(Timestamp.parse(text))
        let foundation = reference.outcome(for: text)
        switch Spec.verdict(text) {
        case .wellFormed:
            if chronicle == foundation {
                if chronicle == .refused { bothRefused += 1 } else { bothAccepted += 1 }
            } else {
                problem("DISAGREEMENT on \(text.debugDescription) (well formed): Chronicle \(chronicle), Foundation \(foundation)")
            }
        case .refused(let strictness):
            if chronicle != .refused {
                problem("Chronicle accepts \(text.debugDescription) as \(chronicle), but it has \(strictness.label) "
                    + "(\(strictness.rawValue)), documented as refused; Foundation \(foundation)")
            } else if foundation == .refused {
                bothRefused += 1
                if strictness.decided { decided[strictness, default: (0, 0)].foundationRefused += 1 }
            } else if strictness.decided {
                decided[strictness, default: (0, 0)].foundationAccepted += 1
                if examples[strictness] == nil { examples[strictness] = "\(text.debugDescription) → \(foundation)" }
            } else {
                problem("UNDECIDED DISAGREEMENT on \(text.debugDescription) (\(strictness.label): \(strictness.rawValue)): "
                    + "Chronicle refused, Foundation \(foundation)")
            }
        }
    }

    func finish() {
        let elapsed = ContinuousClock.now - started
        var summary = "TimestampFuzzTests.\(name): \(checked) inputs checked against Foundation in \(elapsed): "
            + "\(bothAccepted) both accepted (same instant), \(bothRefused) both refused, "
            + "\(reference.julianReadings) compared 2000 years later (Foundation is Julian before 1582-10-15)"
        for (strictness, counts) in decided.sorted(by: { $0.key < $1.key }) {
            summary += "\n  decided: \(strictness.label): Chronicle refused \(counts.foundationAccepted + counts.foundationRefused)"
                + " (Foundation accepted \(counts.foundationAccepted)\(examples[strictness].map { ", e.g. " + $0 } ?? ""))"
        }
        print(summary)
        for text in problems.prefix(25) {
            Issue.record("\(text) [seed 0x\(String(seed, radix: 16)), CHRONICLE_FUZZ_CASES=\(cases)]")
        }
        if problems.count > 25 { Issue.record("… and \(problems.count - 25) more problems like these") }
    }
}

// MARK: - Generators

private enum Generate {
    static let specialYears = [0, 1, 4, 100, 400, 1000, 1500, 1582, 1583, 1600, 1700, 1800, 1900, 1969, 1970,
                               1999, 2000, 2001, 2023, 2024, 2025, 2026, 2038, 2100, 2400, 9996, 9999]

    static func render(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int,
                       fraction: String = "") -> String {
        "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
            + (fraction.isEmpty ? "" : "." + fraction) + "Z"
    }

    /// Feb 28/29 and every month's last day and the day after, at 00:00:00 and 23:59:59.999,
    /// in common, leap, century and 400-year years.
    static func calendarEdges() -> [String] {
        var texts: [String] = []
        for year in [1, 4, 100, 400, 1582, 1583, 1600, 1900, 1970, 2000, 2023, 2024, 2026, 2100, 2400, 9999] {
            for month in 1...12 {
                let last = Spec.daysIn(month: month, year: year)
                for day in Set([1, 28, 29, last, last + 1, 30, 31]).sorted() where day <= 31 {
                    texts.append(render(year, month, day, 0, 0, 0))
                    texts.append(render(year, month, day, 0, 0, 0, fraction: "000"))
                    texts.append(render(year, month, day, 23, 59, 59, fraction: "999"))
                    texts.append(render(year, month, day, 23, 59, 59, fraction: "9"))
                }
            }
        }
        return texts
    }

    static func validInstant(_ random: inout SeededGenerator) -> String {
        let year: Int
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<9: year = Int.random(in: 1...9999, using: &random)
        case 9..<13: year = Int.random(in: 1900...2100, using: &random)
        case 13..<17: year = specialYears.randomElement(using: &random)!
        default: year = Int.random(in: 0...1600, using: &random) // Foundation's Julian years
        }
        let month = Int.random(in: 1...12, using: &random)
        let last = Spec.daysIn(month: month, year: year)
        let day: Int
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3: day = last
        case 3: day = month == 2 && last == 29 ? 29 : 1
        case 4: day = 1
        default: day = Int.random(in: 1...last, using: &random)
        }
        let hour, minute, second: Int
        var fraction: String
        switch Int.random(in: 0..<8, using: &random) {
        case 0: (hour, minute, second, fraction) = (0, 0, 0, ["", "0", "00", "000"].randomElement(using: &random)!)
        case 1: (hour, minute, second, fraction) = (23, 59, 59, ["", "9", "99", "999"].randomElement(using: &random)!)
        default:
            hour = Int.random(in: 0...23, using: &random)
            minute = Int.random(in: 0...59, using: &random)
            second = Int.random(in: 0...59, using: &random)
            let digits = Int.random(in: 0...3, using: &random)
            fraction = String((0..<digits).map { _ in "0123456789".randomElement(using: &random)! })
        }
        return render(year, month, day, hour, minute, second, fraction: fraction)
    }

    static let interesting = Array("0123456789-:.TtZz+ /,_xe".utf8) + [0x00, 0x09, 0x0A, 0x7F]
    static let zones = ["z", "+00:00", "-00:00", "+01:00", "-0100", "+0000", "+00", "+14:00", "+99:99", "GMT", "UTC",
                        " Z", "ZZ", "Z ", "", "Z\n", "Zabc", "Z0"]
    static let fractions = ["", "0000", "1234", "99999", "123456789", "-5", "+5", "5e1", "5 ", "５", ".5", "5.5"]
    static let outOfRange: [(Range<Int>, [String])] = [
        (5..<7, ["00", "13", "19", "99"]), (8..<10, ["00", "29", "30", "31", "32", "39", "99"]),
        (11..<13, ["24", "24", "25", "99"]), (14..<16, ["60", "61", "99"]), (17..<19, ["60", "60", "61", "99"]),
    ]

    /// A valid text with one to three mutations.
    static func mutation(_ random: inout SeededGenerator) -> String {
        var b = Array(validInstant(&random).utf8)
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let at = b.isEmpty ? 0 : Int.random(in: 0..<b.count, using: &random)
            switch Int.random(in: 0..<15, using: &random) {
            case 0: if !b.isEmpty { b[at] = interesting.randomElement(using: &random)! }
            case 1: if !b.isEmpty { b[at] = UInt8.random(in: 0...0x7F, using: &random) }
            case 2: b.insert(interesting.randomElement(using: &random)!, at: Int.random(in: 0...b.count, using: &random))
            case 3: if !b.isEmpty { b.remove(at: at) }
            case 4: // swap two digits
                let digits = b.indices.filter { Spec.isDigit(b[$0]) }
                if let i = digits.randomElement(using: &random), let j = digits.randomElement(using: &random) { b.swapAt(i, j) }
            case 5: if at + 1 < b.count { b.swapAt(at, at + 1) }
            case 6, 7: // a field out of range (or a day the month lacks, or hour 24, or a leap second)
                let (range, values) = outOfRange.randomElement(using: &random)!
                if b.count >= range.upperBound { b.replaceSubrange(range, with: Array(values.randomElement(using: &random)!.utf8)) }
            case 8: // another zone
                if b.last == UInt8(ascii: "Z") { b.removeLast() }
                b += Array(zones.randomElement(using: &random)!.utf8)
            case 9: // another fraction
                if b.count >= 20 {
                    b = Array(b[0..<19]) + Array(".".utf8) + Array(fractions.randomElement(using: &random)!.utf8) + Array("Z".utf8)
                }
            case 10: // lowercase designators
                b = b.map { $0 == UInt8(ascii: "T") ? UInt8(ascii: "t") : $0 == UInt8(ascii: "Z") ? UInt8(ascii: "z") : $0 }
            case 11: // whitespace around
                let space = Array([" ", "\t", "\n", "  "].randomElement(using: &random)!.utf8)
                if Bool.random(using: &random) { b = space + b } else { b += space }
            case 12: // a fullwidth digit
                let digits = b.indices.filter { Spec.isDigit(b[$0]) }
                if let i = digits.randomElement(using: &random) {
                    b.replaceSubrange(i...i, with: Array(String(UnicodeScalar(0xFF10 + UInt32(b[i] - 0x30))!).utf8))
                }
            case 13: // truncate, or duplicate a stretch
                if Bool.random(using: &random) { b = Array(b.prefix(at)) } else if !b.isEmpty {
                    let end = Int.random(in: at...b.count, using: &random)
                    b.insert(contentsOf: b[at..<end], at: end)
                }
            default: // a field one digit narrower or wider
                let starts = [0, 5, 8, 11, 14, 17].filter { $0 < b.count }
                if let i = starts.randomElement(using: &random) {
                    if Bool.random(using: &random) { b.remove(at: i) } else { b.insert(UInt8(ascii: "0"), at: i) }
                }
            }
        }
        return String(decoding: b, as: UTF8.self)
    }

    /// Random ASCII (control characters and NUL included), or text from the timestamp's own alphabet.
    static func randomASCII(_ random: inout SeededGenerator) -> String {
        if Bool.random(using: &random) {
            let count = Int.random(in: 0...32, using: &random)
            return String(decoding: (0..<count).map { _ in UInt8.random(in: 0...0x7F, using: &random) }, as: UTF8.self)
        }
        let alphabet = Array("0123456789-:.TZtz+ ".utf8)
        let count = Int.random(in: 18...27, using: &random)
        return String(decoding: (0..<count).map { _ in alphabet.randomElement(using: &random)! }, as: UTF8.self)
    }

    /// Random digits in the exact shape, so every field goes in and out of range: each field
    /// mostly from its range and one past either end, sometimes any two digits.
    static func randomDigitsInShape(_ random: inout SeededGenerator) -> String {
        func digits(_ count: Int, _ random: inout SeededGenerator) -> String {
            String((0..<count).map { _ in "0123456789".randomElement(using: &random)! })
        }
        func field(_ near: ClosedRange<Int>, _ random: inout SeededGenerator) -> String {
            random.next() % 4 == 0 ? digits(2, &random) : pad(Int.random(in: near, using: &random), 2)
        }
        let year = random.next() % 4 == 0 ? digits(4, &random) : pad(specialYears.randomElement(using: &random)!, 4)
        let fraction = digits(Int.random(in: 0...3, using: &random), &random)
        return "\(year)-\(field(0...13, &random))-\(field(26...32, &random))T\(field(22...25, &random)):"
            + "\(field(57...60, &random)):\(field(57...61, &random))" + (fraction.isEmpty ? "" : "." + fraction) + "Z"
    }
}
