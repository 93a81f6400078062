import Foundation
import JSONText
import Testing

@Suite("JSON string literals")
struct JSONQuotingTests {
    @Test("text with nothing to escape is wrapped whole, byte for byte", arguments: ["", "plain", "naïve café", "日本語", "a/b", "🙂 emoji"])
    func wrappedWhole(text: String) {
        #expect(JSONQuoting.quoted(text) == "\"" + text + "\"")
    }

    @Test("quotes, backslashes and control characters are escaped, short forms where JSON has them")
    func escapes() {
        #expect(JSONQuoting.quoted("say \"hi\"") == #""say \"hi\"""#)
        #expect(JSONQuoting.quoted(#"C:\dir"#) == #""C:\\dir""#)
        #expect(JSONQuoting.quoted("a\nb\rc\td\u{08}e\u{0C}f") == #""a\nb\rc\td\be\ff""#)
        #expect(JSONQuoting.quoted("\u{00}\u{1F}") == #""\u0000\u001f""#)
        #expect(JSONQuoting.quoted("\u{7F}") == "\"\u{7F}\"", "DEL is not a control character for JSON")
    }

    @Test("every BMP scalar and some beyond round-trip through a JSON parser unchanged")
    func roundTrips() throws {
        var scalars = (0x00...0xD7FF).compactMap(Unicode.Scalar.init)
        scalars += (0xE000...0xFFFF).compactMap(Unicode.Scalar.init)
        scalars += [Unicode.Scalar(0x1F642)!, Unicode.Scalar(0x10FFFF)!]
        for chunk in stride(from: 0, to: scalars.count, by: 4096) {
            let text = String(String.UnicodeScalarView(scalars[chunk..<min(chunk + 4096, scalars.count)]))
            var bytes: [UInt8] = []
            JSONQuoting.append(text, to: &bytes)
            #expect(bytes == Array(JSONQuoting.quoted(text).utf8))
            let decoded = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) as? String
            #expect(decoded == text, "chunk at \(chunk)")
        }
    }
}
