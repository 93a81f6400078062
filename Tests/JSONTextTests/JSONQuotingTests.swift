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
        for (chunk, text) in everyScalarInTexts.enumerated() {
            var bytes: [UInt8] = []
            JSONQuoting.append(text, to: &bytes)
            #expect(bytes == Array(JSONQuoting.quoted(text).utf8))
            let decoded = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) as? String
            #expect(decoded == text, "chunk at \(chunk)")
        }
    }
}
