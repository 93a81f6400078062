import ChronicleTestSupport
import Foundation
import Testing
import UUIDText

/// Seeded fuzzing of UUIDText's hand-written parser, `UUID(hyphenated:)`, against Foundation's
/// `UUID(uuidString:)`, and of its formatter, `lowercasedString`, against `uuidString.lowercased()`.
///
/// The property, for every input: both refuse, or both accept and give the same UUID; except
/// where Chronicle is documented to be stricter ("the 36-character hyphenated form (either
/// case); nil for anything else"), where the test asserts that Chronicle refuses and counts the
/// case under its class (`UUIDStrictness`, each listed and decided below; nothing is skipped).
///
/// - `CHRONICLE_SEED=N` (decimal or `0x` hex): replay a run; every test prints its seed and the run's.
/// - `CHRONICLE_FUZZ_CASES=N`: inputs per generator (default 5,000).
@Suite("UUIDText fuzzing against Foundation's UUID(uuidString:)", .timeLimit(.minutes(10)))
struct UUIDTextFuzzTests {
    @Test("random UUIDs in upper, lower and mixed case: the same UUID from both parsers",
          .timeLimit(.minutes(5)))
    func randomUUIDsAgree() throws {
        let run = try #require(UUIDFuzzRun(name: "randomUUIDsAgree", salt: 0x0101))
        for _ in 0..<run.cases {
            let id = UUIDGenerate.uuid(&run.random)
            for text in [id.uuidString, id.uuidString.lowercased(), UUIDGenerate.mixedCase(id, &run.random)] {
                run.check(text)
                if UUID(hyphenated: text) != id {
                    run.problem("UUID(hyphenated: \(text.debugDescription)) is \(String(describing: UUID(hyphenated: text))), not \(id)")
                }
            }
            // A Substring inside longer text parses alike.
            let wrapped = "<" + id.lowercasedString + ">"
            let inner = wrapped.dropFirst().dropLast()
            if UUID(hyphenated: inner) != id { run.problem("UUID(hyphenated: Substring \(inner.debugDescription)) is not \(id)") }
        }
        run.finish()
    }

    @Test("mutated UUID text: both refuse, or both agree, or Chronicle refuses a documented class",
          .timeLimit(.minutes(5)))
    func mutationsAgree() throws {
        let run = try #require(UUIDFuzzRun(name: "mutationsAgree", salt: 0x0102))
        for text in UUIDGenerate.edges { run.check(text) }
        for _ in 0..<run.cases { run.check(UUIDGenerate.mutation(&run.random)) }
        run.finish()
    }

    @Test("random ASCII and random text from the UUID alphabet: both refuse, or both agree, or a documented class",
          .timeLimit(.minutes(5)))
    func randomTextAgrees() throws {
        let run = try #require(UUIDFuzzRun(name: "randomTextAgrees", salt: 0x0103))
        for _ in 0..<run.cases {
            run.check(UUIDGenerate.randomASCII(&run.random))
            run.check(UUIDGenerate.randomFromAlphabet(&run.random))
        }
        run.finish()
    }

    @Test("lowercasedString is uuidString.lowercased() and parses back", .timeLimit(.minutes(5)))
    func lowercaseFormatterMatchesFoundation() throws {
        let run = try #require(UUIDFuzzRun(name: "lowercaseFormatterMatchesFoundation", salt: 0x0104))
        var ids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                   UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for _ in 0..<(run.cases * 4) { ids.append(UUIDGenerate.uuid(&run.random)) }
        for id in ids {
            run.formatted += 1
            let text = id.lowercasedString
            if text != id.uuidString.lowercased() {
                run.problem("lowercasedString of \(id.uuidString) is \(text.debugDescription), not \(id.uuidString.lowercased().debugDescription)")
            }
            if UUID(hyphenated: text) != id || UUID(uuidString: text) != id {
                run.problem("\(text.debugDescription) does not parse back to \(id.uuidString)")
            }
        }
        run.finish()
    }
}

// MARK: - The decided classes

/// Why a text is not a UUID by the documented contract of `UUID(hyphenated:)`: exactly 36 UTF-8
/// bytes, hyphens at offsets 8, 13, 18 and 23, a hex digit of either case everywhere else.
/// Chronicle must refuse every class. Foundation's `UUID(uuidString:)` on Linux also insists on
/// 36 characters, but reads each byte the way `sscanf("%2hhx")` does, and reads the text only up to
/// a NUL, so it accepts (and misreads) some text off the form; the `decided` classes are those,
/// counted when Foundation accepts.
/// For the others Foundation refuses as well, and Foundation accepting one fails the test.
private enum UUIDStrictness: String, CaseIterable, Comparable {
    // Decided exceptions: Chronicle refuses; Foundation may accept.
    case signInByte = "a '+' or '-' where a hex digit belongs: Foundation reads a signed byte (\"-b\" as 0xF5)"
    case hexPrefixInByte = "an '0x'/'0X' prefix inside a byte: Foundation reads it as a C hex prefix"
    case whitespaceInByte = "whitespace where a hex digit belongs: Foundation skips it"
    case nulByte = "a NUL byte: Foundation reads the text as a C string, so a valid UUID then NUL and anything is accepted"
    // Not exceptions: Foundation is expected to refuse these too.
    case wrongLength = "not 36 UTF-8 bytes (one short or long, braces, urn: prefix, no hyphens…)"
    case hyphenMissing = "a hex digit or other character where a hyphen belongs"
    case nonHex = "a character that is no hex digit, sign, 'x' or whitespace where a hex digit belongs"

    var decided: Bool {
        switch self {
        case .signInByte, .hexPrefixInByte, .whitespaceInByte, .nulByte: true
        default: false
        }
    }

    var label: String { String(describing: self) }

    static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

/// The test's own reading of the documented contract (independent of the code under test).
private enum UUIDSpec {
    static let hyphens: Set<Int> = [8, 13, 18, 23]

    static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// `nil` when well formed; otherwise the class of the first offending byte.
    static func strictness(_ text: String) -> UUIDStrictness? {
        let b = Array(text.utf8)
        if b.contains(0) { return .nulByte }
        guard b.count == 36 else { return .wrongLength }
        var found: [UUIDStrictness] = []
        for (i, byte) in b.enumerated() {
            if hyphens.contains(i) {
                if byte != UInt8(ascii: "-") { found.append(.hyphenMissing) }
            } else if !isHex(byte) {
                switch byte {
                case UInt8(ascii: "+"), UInt8(ascii: "-"): found.append(.signInByte)
                case UInt8(ascii: "x"), UInt8(ascii: "X"): found.append(.hexPrefixInByte)
                case 0x20, 0x09...0x0D: found.append(.whitespaceInByte)
                default: found.append(.nonHex)
                }
            }
        }
        // Several problems at once: a decided one wins, since a sign, prefix or skipped whitespace
        // shifts Foundation's reading of every byte after it (a hyphen then lands elsewhere).
        return found.first(where: \.decided) ?? found.first
    }
}

// MARK: - A run: seed, cases, checks, report

private final class UUIDFuzzRun {
    static let defaultCases = 5_000

    let name: String
    let seed: UInt64
    let cases: Int
    var random: SeededGenerator
    private(set) var problems: [String] = []
    private var checked = 0
    private var bothAccepted = 0
    private var bothRefused = 0
    private var decided: [UUIDStrictness: (foundationAccepted: Int, foundationRefused: Int)] = [:]
    /// The first input of each decided class that Foundation accepted, with Foundation's reading.
    private var examples: [UUIDStrictness: String] = [:]
    /// UUIDs formatted (the formatter test).
    var formatted = 0
    private let started = ContinuousClock.now

    /// `nil` (with an issue recorded) when an environment variable does not parse.
    init?(name: String, salt: UInt64) {
        guard let (seed, cases) = TestSeed.fuzz("UUIDTextFuzzTests.\(name)", defaultCases: Self.defaultCases) else { return nil }
        self.name = name
        self.seed = seed
        self.cases = cases
        // Each test draws its own stream from the run's seed, so tests replay alone or together.
        random = SeededGenerator(seed: seed ^ (salt &* 0x9E37_79B9_7F4A_7C15))
    }

    func problem(_ text: String) { problems.append(text) }

    static func describe(_ id: UUID?) -> String { id.map { $0.uuidString } ?? "refused" }

    /// The property for one input.
    func check(_ text: String) {
        checked += 1
        let chronicle = UUID(hyphenated: text)
        let foundation = UUID(uuidString: text)
        guard let strictness = UUIDSpec.strictness(text) else {
            if chronicle == foundation, chronicle != nil {
                bothAccepted += 1
            } else {
                problem("DISAGREEMENT on \(text.debugDescription) (well formed): Chronicle \(Self.describe(chronicle)), "
                    + "Foundation \(Self.describe(foundation))")
            }
            return
        }
        if chronicle != nil {
            problem("Chronicle accepts \(text.debugDescription) as \(Self.describe(chronicle)), but it has \(strictness.label) "
                + "(\(strictness.rawValue)), documented as refused; Foundation \(Self.describe(foundation))")
        } else if foundation == nil {
            bothRefused += 1
            if strictness.decided { decided[strictness, default: (0, 0)].foundationRefused += 1 }
        } else if strictness.decided {
            decided[strictness, default: (0, 0)].foundationAccepted += 1
            if examples[strictness] == nil { examples[strictness] = "\(text.debugDescription) → \(Self.describe(foundation))" }
        } else {
            problem("UNDECIDED DISAGREEMENT on \(text.debugDescription) (\(strictness.label): \(strictness.rawValue)): "
                + "Chronicle refused, Foundation \(Self.describe(foundation))")
        }
    }

    func finish() {
        let elapsed = ContinuousClock.now - started
        var summary = "UUIDTextFuzzTests.\(name): \(checked) inputs checked against Foundation in \(elapsed): "
            + "\(bothAccepted) both accepted (same UUID), \(bothRefused) both refused"
            + (formatted > 0 ? ", \(formatted) UUIDs formatted and parsed back" : "")
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

private enum UUIDGenerate {
    static func uuid(_ random: inout SeededGenerator) -> UUID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        switch random.next() % 8 {
        case 0: bytes = bytes.map { $0 & 0x0F } // many zero nibbles
        case 1: bytes = bytes.map { $0 | 0xF0 } // many 'f's
        default: break
        }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    static func mixedCase(_ id: UUID, _ random: inout SeededGenerator) -> String {
        String(id.uuidString.map { Bool.random(using: &random) ? Character($0.lowercased()) : $0 })
    }

    static func anyCase(_ random: inout SeededGenerator) -> String {
        let id = uuid(&random)
        switch random.next() % 3 {
        case 0: return id.uuidString
        case 1: return id.lowercasedString
        default: return mixedCase(id, &random)
        }
    }

    static let edges = [
        "", "-", "00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
        "{1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b}", "1f0e8c2a3b4d4e5f8a9b0c1d2e3f4a5b", "urn:uuid:1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
        " 1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b ", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5",
        "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5bb", "1f0e8c2a-3b4d-4e5f-8a9b0-c1d2e3f4a5b", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5g",
        "+f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "-f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "0x0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
        "1f0e8c2a--b4d-4e5f-8a9b-0c1d2e3f4a5b", "1f0e8c2a-0Xbd-4e5f-8a9b-0c1d2e3f4a5b", "1f0e8c2a- b4d-4e5f-8a9b-0c1d2e3f4a5b",
        "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a\n5", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5\0",
        "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b\0", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b\0junk", "\01f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5\u{e9}",
        "1f0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4\u{e9}b", "ｆ0e8c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b", "1f0e8c2a_3b4d_4e5f_8a9b_0c1d2e3f4a5b",
    ]

    static let interesting = Array("0123456789abcdefABCDEFgGxXzZ-+ {}\t\n".utf8) + [0x00, 0x7F]

    /// A valid text (any case) with one to three mutations.
    static func mutation(_ random: inout SeededGenerator) -> String {
        var b = Array(anyCase(&random).utf8)
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let at = b.isEmpty ? 0 : Int.random(in: 0..<b.count, using: &random)
            switch Int.random(in: 0..<13, using: &random) {
            case 0, 1: if !b.isEmpty { b[at] = interesting.randomElement(using: &random)! } // non-hex, a moved hyphen…
            case 2: if !b.isEmpty { b[at] = UInt8.random(in: 0...0x7F, using: &random) }
            case 3: b.insert(interesting.randomElement(using: &random)!, at: Int.random(in: 0...b.count, using: &random)) // one long
            case 4: if !b.isEmpty { b.remove(at: at) } // one short
            case 5: // a hyphen moved one place (swapped with its neighbour)
                let hyphens = b.indices.filter { b[$0] == UInt8(ascii: "-") }
                if let i = hyphens.randomElement(using: &random) {
                    let j = i + (Bool.random(using: &random) ? 1 : -1)
                    if b.indices.contains(j) { b.swapAt(i, j) }
                }
            case 6: // a hyphen removed and another inserted elsewhere (the length kept)
                if let i = b.indices.filter({ b[$0] == UInt8(ascii: "-") }).randomElement(using: &random) {
                    b.remove(at: i)
                    b.insert(UInt8(ascii: "-"), at: Int.random(in: 0...b.count, using: &random))
                }
            case 7: // braces, or a NUL and whatever after
                switch random.next() % 3 {
                case 0: b = Array("{".utf8) + b + Array("}".utf8)
                case 1: b += [0]
                default: b += [0] + Array(["junk", "}", "-0", " "].randomElement(using: &random)!.utf8)
                }
            case 8: // whitespace around or inside
                let space = Array([" ", "\t", "\n", "\r\n"].randomElement(using: &random)!.utf8)
                switch random.next() % 3 {
                case 0: b = space + b
                case 1: b += space
                default: b.insert(contentsOf: space, at: Int.random(in: 0...b.count, using: &random))
                }
            case 9: // a sign or a hex prefix in place of digits (Foundation's sscanf reads them)
                let piece = Array(["+", "-", "0x", "0X", " ", "+0", "-f"].randomElement(using: &random)!.utf8)
                let end = min(b.count, at + piece.count)
                b.replaceSubrange(at..<end, with: piece)
            case 10: // a non-ASCII look-alike
                let scalar = ["\u{e9}", "ｆ", "０", "\u{2010}", "\u{a0}"].randomElement(using: &random)!
                if !b.isEmpty { b.replaceSubrange(at...at, with: Array(scalar.utf8)) }
            case 11: b = b.filter { $0 != UInt8(ascii: "-") } // no hyphens
            default: // truncate, or duplicate a stretch
                if Bool.random(using: &random) { b = Array(b.prefix(at)) } else if !b.isEmpty {
                    let end = Int.random(in: at...b.count, using: &random)
                    b.insert(contentsOf: b[at..<end], at: end)
                }
            }
        }
        return String(decoding: b, as: UTF8.self)
    }

    /// Random ASCII (control characters and NUL included), 0 to 40 bytes, 36 a third of the time.
    static func randomASCII(_ random: inout SeededGenerator) -> String {
        let count = random.next() % 3 == 0 ? 36 : Int.random(in: 0...40, using: &random)
        return String(decoding: (0..<count).map { _ in UInt8.random(in: 0...0x7F, using: &random) }, as: UTF8.self)
    }

    /// 36 characters from the UUID's own alphabet and Foundation's lenient extras, hyphens
    /// usually in place, so the shape is hit often and the lenient reading gets exercised.
    static func randomFromAlphabet(_ random: inout SeededGenerator) -> String {
        let hex = Array("0123456789abcdefABCDEF".utf8)
        let extras = Array("-+xX g".utf8)
        let b: [UInt8] = (0..<36).map { i in
            if UUIDSpec.hyphens.contains(i), random.next() % 8 != 0 { return UInt8(ascii: "-") }
            return random.next() % 10 == 0 ? extras.randomElement(using: &random)! : hex.randomElement(using: &random)!
        }
        return String(decoding: b, as: UTF8.self)
    }
}
