import ChronicleTestSupport
import Foundation
import JSONText
import Testing

@Suite("The strict JSON scanner")
struct JSONScannerTests {
    /// Skips one value of `text` to the end, or returns the failure's description.
    static func scan(_ text: String) -> String? {
        scan(Array(text.utf8))
    }

    static func scan(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            do throws(JSONSyntaxError) {
                let range = try scanner.skipValue()
                try scanner.end()
                #expect(range.upperBound <= buffer.count)
                return nil
            } catch {
                return error.description
            }
        }
    }

    @Test("every kind of value is read to its end, whitespace around it", arguments: [
        "{}", "[]", #""""#, "0", "-0", "12.5e-3", "1E+2", "true", "false", "null", "1e308", "-1.7976931348623157e308",
        "2.5e-432", "1" + String(repeating: "0", count: 308),
        #" { "a" : [ 1 , { "b" : null } , "\u00e9\n" ] , "c" : -0.5 } "#, "\t\r\n[]\n",
        #"{"naïve":"日本語 🙂","k":"\ud83d\ude42"}"#,
    ])
    func accepts(text: String) {
        #expect(Self.scan(text) == nil)
    }

    @Test("anything but one strict value is refused, with the byte where it went wrong", arguments: [
        ("", "unexpected end of data"),
        ("{", "unexpected end of data"),
        (#"{"a":1,}"#, "unexpected '}' at byte 7"),
        (#"{"a":1}x"#, "unexpected 'x' at byte 7"),
        ("[1,]", "unexpected ']' at byte 3"),
        (#"{'a':1}"#, "unexpected ''' at byte 1"),
        ("01", "unexpected '1' at byte 1"),
        ("+1", "unexpected '+' at byte 0"),
        ("1.", "unexpected end of data"),
        ("1e", "unexpected end of data"),
        ("-", "unexpected end of data"),
        ("tru", "unexpected end of data"),
        ("NaN", "unexpected 'N' at byte 0"),
        ("/*c*/{}", "unexpected '/' at byte 0"),
        ("\u{FEFF}{}", "unexpected byte 0xEF at byte 0"),
        (#""\x""#, "invalid escape at byte 1"),
        (#""\u12""#, "unexpected '\"' at byte 5"),
        (#""\ud800""#, "unpaired surrogate escape at byte 1"),
        (#""\udc00""#, "unpaired surrogate escape at byte 1"),
        (#""\ud800\u0041""#, "unpaired surrogate escape at byte 1"),
        ("\"tab\there\"", "control character in string at byte 4"),
        (#"{"a":1,"a":2}"#, #"duplicate key "a" at byte 7"#),
        (#"[{"k":1,"\u006b":2}]"#, #"duplicate key "k" at byte 8"#),
        // Beyond a Double's range, which Foundation's reader refuses (found by the damage
        // fuzzer below on a seed of its own: 2.5e432).
        ("[1,2.5e432]", "number too large for a 64-bit float at byte 3"),
        ("1.8e308", "number too large for a 64-bit float at byte 0"),
        ("-1e309", "number too large for a 64-bit float at byte 0"),
        ("1" + String(repeating: "0", count: 309), "number too large for a 64-bit float at byte 0"),
    ])
    func refuses(text: String, message: String) {
        #expect(Self.scan(text) == message)
    }

    @Test("invalid UTF-8 is refused where it starts", arguments: [
        [0xFF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80],
    ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) {
        let bytes = Array(#"{"k":"ab"#.utf8) + sequence + Array(#""}"#.utf8)
        #expect(Self.scan(bytes) == "invalid UTF-8 at byte 8")
    }

    @Test("objects and arrays nest up to the limit and no further, however deep the input")
    func depth() {
        let limit = JSONScanner.maxDepth
        #expect(Self.scan(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)) == nil)
        #expect(Self.scan(String(repeating: #"{"a":"#, count: limit) + "1" + String(repeating: "}", count: limit)) == nil)
        #expect(Self.scan(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1))
                == "nested deeper than \(limit) levels at byte \(limit)")
        let deep = String(repeating: "[", count: 200_000)
        #expect(Self.scan(deep)?.hasPrefix("nested deeper than") == true)
    }

    @Test("a name given twice is found among many members too (hashed past the first few)", arguments: [2, 16, 17, 40, 5_000])
    func duplicatesAmongMany(count: Int) {
        let distinct = (0..<count).map { #""k\#($0)":\#($0)"# }
        #expect(Self.scan("{" + distinct.joined(separator: ",") + "}") == nil)
        let twice = distinct + [#""k\#(count / 2)":0"#]
        #expect(Self.scan("{" + twice.joined(separator: ",") + "}")?.hasPrefix(#"duplicate key "k\#(count / 2)""#) == true)
        let escaped = distinct + [#""\u006b\#(count - 1)":0"#]
        #expect(Self.scan("{" + escaped.joined(separator: ",") + "}")?.hasPrefix(#"duplicate key "k\#(count - 1)""#) == true)
    }

    @Test("a member-by-member walk reads names, strings, numbers and literals")
    func walk() throws {
        let text = #"{"name":"A\"da","age":36,"ratio":-1.5e3,"ok":true,"none":null,"skip":[1,{"x":2}]}"#
        var seen: [String] = []
        try Array(text.utf8).withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            #expect(try scanner.enterObject())
            repeat {
                let name = try scanner.memberName()
                switch scanner.nextValueKind() {
                case .string: seen.append("\(name)=\(try scanner.string())")
                case .number: seen.append("\(name)=\(try scanner.numberText())")
                case .bool: seen.append("\(name)=\(try scanner.bool())")
                case .null: try scanner.null(); seen.append("\(name)=null")
                default:
                    let range = try scanner.skipValue(depth: 1)
                    seen.append("\(name)=\(String(decoding: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self))")
                }
            } while try scanner.nextMember()
            try scanner.end()
        }
        #expect(seen == [#"name=A"da"#, "age=36", "ratio=-1.5e3", "ok=true", "none=null", #"skip=[1,{"x":2}]"#])
    }

    @Test("every BMP scalar and some beyond read back from their quoted form unchanged")
    func stringsRoundTrip() throws {
        for text in everyScalarInTexts {
            let read = try Array(JSONQuoting.quoted(text).utf8).withUnsafeBytes { buffer in
                var scanner = JSONScanner(buffer)
                return try scanner.string()
            }
            #expect(read == text)
        }
        // \u escapes, surrogate pairs included, decode to the scalars they name.
        let escaped = try Array(#""\u00e9\u65e5\ud83d\ude42\/\b\f""#.utf8).withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            return try scanner.string()
        }
        #expect(escaped == "é日🙂/\u{08}\u{0C}")
    }

    /// Damaged documents: whatever the scanner takes, Foundation's parser takes too (the scanner
    /// is the stricter of the two), and no input crashes it.
    @Test("on damaged documents the scanner never takes what Foundation refuses", .timeLimit(.minutes(5)))
    func stricterThanFoundation() {
        var random = TestSeed.generator(for: "JSONScannerTests.stricterThanFoundation")
        let seeds = [#"{"a":[1,2.5e-3,{"b":"c\n\u00e9"}],"t":true,"n":null,"s":"日本"}"#, #"[{"x":-0},[],{},"\\",false]"#]
        let structural = Array(#"{}[]:,"\ -.eE0123456789tfnu"#.utf8)
        var takenByBoth = 0
        for round in 0..<20_000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = structural.randomElement(using: &random)!
                case 1: bytes.insert(structural.randomElement(using: &random)!, at: at)
                case 2: bytes.remove(at: at)
                default: bytes[at] ^= UInt8.random(in: 1...255, using: &random)
                }
            }
            guard Self.scan(bytes) == nil else { continue }
            let foundation = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            #expect(foundation != nil, "taken by the scanner, refused by Foundation: \(String(decoding: bytes, as: UTF8.self))")
            takenByBoth += 1
        }
        #expect(takenByBoth > 100, "the damage should leave some documents valid")
    }
}
