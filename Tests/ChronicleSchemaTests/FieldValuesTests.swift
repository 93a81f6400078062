import ChronicleSchema
import ChronicleTestSupport
import Foundation
import Testing

/// `FieldValues` reads as a dictionary whatever order its slots are in: values laid as an
/// entity's fields (as the event reader gives them) equal a literal of the same pairs.
@Suite struct FieldValuesTests {
    static let model: ChronicleModel = {
        do {
            return try ChronicleModel("shelf", version: 1) { model in
                model.entity("Book") { book in
                    book.text("title")
                    book.integer("pages", optional: true)
                    book.text("note", optional: true)
                }
            }
        } catch {
            preconditionFailure("the shelf model is declared wrong: \(error)")
        }
    }()

    static let stream = "book-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"

    func read(_ type: String, _ data: String) throws -> ChronicleModel.FieldValues {
        let event = try ChronicleModel.EventReader(Self.model).read(type: type, stream: Self.stream, data: Data(data.utf8))
        switch event.change {
        case .created(let values), .updated(let values): return values
        default: return [:]
        }
    }

    @Test func valuesReadByTheModelEqualALiteralOfTheSamePairs() throws {
        let read = try read("BookCreated", #"{"title":"Dune","pages":412}"#)
        let literal: ChronicleModel.FieldValues = ["pages": .integer(412), "title": .text("Dune")]
        #expect(read == literal)
        #expect(read.hashValue == literal.hashValue)
        #expect(Set([read, literal]).count == 1)
        #expect(read.count == 2)
        #expect(read.keys == ["title", "pages"])
        #expect(read.dictionary == ["title": .text("Dune"), "pages": .integer(412)])
        #expect(read != ["title": .text("Dune")])
        #expect(read != ["title": .text("Dune"), "pages": .integer(413)])
    }

    @Test func aNameSetToNilHoldsNoValueAndIsNotIterated() throws {
        var values = try read("BookCreated", #"{"title":"Dune","pages":412,"note":"signed"}"#)
        values["pages"] = nil
        #expect(values["pages"] == nil)
        #expect(Array(values).map(\.key) == ["title", "note"])
        #expect(values == ["title": .text("Dune"), "note": .text("signed")])
        values["shelf"] = .integer(3)
        #expect(values["shelf"] == .integer(3))
        #expect(values.count == 3)
    }

    @Test func anUpdateClearsWithNullAndTheFoldKeepsTheRest() throws {
        var snapshot = ChronicleModel.Snapshot(Self.model)
        let reader = ChronicleModel.EventReader(Self.model)
        snapshot.apply(try reader.read(type: "BookCreated", stream: Self.stream, data: Data(#"{"title":"Dune","pages":412,"note":"signed"}"#.utf8)))
        snapshot.apply(try reader.read(type: "BookUpdated", stream: Self.stream, data: Data(#"{"note":null,"pages":500}"#.utf8)))
        let state = try #require(snapshot.state(of: "Book", id: UUID(uuidString: "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee")!))
        #expect(state.values == ["title": .text("Dune"), "pages": .integer(500)])
        // A creation given in another order (a literal) folds to the same state.
        var other = ChronicleModel.Snapshot(Self.model)
        let id = UUID()
        other.apply(ChronicleModel.Event(type: "BookCreated", entity: "Book", id: id,
                                         change: .created(["pages": .integer(500), "title": .text("Dune"), "shelf": .integer(1)])))
        #expect(other.state(of: "Book", id: id)?.values == ["title": .text("Dune"), "pages": .integer(500)])
    }

    /// Values kept as their bytes behave as a dictionary does, whatever is written in what
    /// order: random writes by name, by place and slot to slot, checked against a plain
    /// dictionary after each, and kept as a stored read model keeps them and read back.
    @Test("varints read back what was written, in as few bytes as they take; a truncated or overlong one is refused")
    func varints() throws {
        let values = [0, 1, 127, 128, 255, 16_383, 16_384, 1 << 31, Int(UInt32.max), Int.max]
        for value in values {
            var bytes: [UInt8] = []
            StoredValue.appendVarint(value, to: &bytes)
            // The oracle: 7 bits a byte.
            var expectedCount = 1
            while value >> (7 * expectedCount) > 0 { expectedCount += 1 }
            #expect(bytes.count == expectedCount, "\(value)")
            #expect(bytes.dropLast().allSatisfy { $0 >= 0x80 } && bytes.last! < 0x80)
            let read = try bytes.withUnsafeBytes { buffer in
                var reader = StoredBytesReader(bytes: buffer)
                return (try reader.varint(), reader.remaining)
            }
            #expect(read.0 == value && read.1 == 0)
            if bytes.count > 1 {
                let truncated = Array(bytes.dropLast())
                #expect(throws: StoredBytesReader.Short.self) {
                    try truncated.withUnsafeBytes { buffer in
                        var reader = StoredBytesReader(bytes: buffer)
                        _ = try reader.varint()
                    }
                }
            }
        }
        let overlong = [UInt8](repeating: 0xFF, count: 10) + [0x01]
        #expect(throws: StoredBytesReader.Short.self) {
            try overlong.withUnsafeBytes { buffer in
                var reader = StoredBytesReader(bytes: buffer)
                _ = try reader.varint()
            }
        }
    }

    @Test func randomWritesReadAsADictionaryAndSurviveTheStoredForm() throws {
        let name = "FieldValuesTests.randomWrites"
        var random = TestSeed.generator(for: name)
        let layout = ["a", "b", "c", "d", "e"]
        let others = ["x", "y"]
        func drawValue() -> ChronicleModel.FieldValue {
            switch Int.random(in: 0..<11, using: &random) {
            case 0: return .text("")
            // Days are kept as 4 bytes, any digits; near misses as text.
            case 9: return .text(["2026-12-07", "0000-00-99", "9999-99-00", "2026-1-07", "2026-12-07 ", "2026/12/07", "2026-12-0a"]
                .randomElement(using: &random)!)
            // Lengths past 127 take two bytes.
            case 10: return .text(String(repeating: "x", count: Int.random(in: 120...20_000, using: &random)))
            case 1: return .text(String(repeating: "é", count: Int.random(in: 1...40, using: &random)))
            case 2: return .text(UUID().uuidString.lowercased())
            case 3: return .text(UUID().uuidString)
            case 4: return .integer(Int.random(in: Int.min...Int.max, using: &random))
            case 5: return .number(Double.random(in: -1e9...1e9, using: &random))
            case 6: return .boolean(Bool.random(using: &random))
            case 7: return .ids((0..<Int.random(in: 0...3, using: &random)).map { _ in UUID() })
            default: return .null
            }
        }
        for _ in 0..<200 {
            var values = ChronicleModel.FieldValues(layout: layout)
            var oracle: [String: ChronicleModel.FieldValue] = [:]
            var other = ChronicleModel.FieldValues(layout: layout)
            var otherOracle: [String: ChronicleModel.FieldValue] = [:]
            for _ in 0..<Int.random(in: 1...30, using: &random) {
                let place = Int.random(in: 0..<layout.count, using: &random)
                let value: ChronicleModel.FieldValue? = Bool.random(using: &random) ? drawValue() : nil
                switch Int.random(in: 0..<5, using: &random) {
                case 0:
                    values.set(value, at: place, named: layout[place])
                    oracle[layout[place]] = value
                case 1:
                    let name = (layout + others).randomElement(using: &random)!
                    values[name] = value
                    oracle[name] = value
                case 2:
                    other.setSlot(value, at: place)
                    otherOracle[layout[place]] = value
                case 3 where values.isLaid(as: layout):
                    values.copySlot(at: place, from: other)
                    oracle[layout[place]] = otherOracle[layout[place]]
                default:
                    let text = ["", "plain", UUID().uuidString.lowercased(), UUID().uuidString, "2026-02-30", "2026-02-3"]
                        .randomElement(using: &random)!
                    let isReference = Bool.random(using: &random)
                    let set = Array(text.utf8).withUnsafeBytes { values.setText(utf8: $0, at: place, asReference: isReference) }
                    // A reference takes an id in either case, kept as its lowercase spelling.
                    let expected: ChronicleModel.FieldValue? = isReference
                        ? UUID(uuidString: text).map { .text($0.uuidString.lowercased()) } : .text(text)
                    #expect(set == (expected != nil))
                    if values.names[place] == layout[place], let expected { oracle[layout[place]] = expected }
                }
                #expect(values.dictionary == oracle)
                #expect(values == ChronicleModel.FieldValues(oracle))
                #expect(values.count == oracle.count)
                #expect(Set(values.keys) == Set(oracle.keys))
                for name in layout + others { #expect(values[name] == oracle[name]) }
            }
            // Kept as a stored read model keeps the entity's fields, and read back in place.
            var stored: [UInt8] = []
            let count = values.appendStored(to: &stored, layout: layout)
            let read = try stored.withUnsafeBytes { bytes in
                var reader = StoredBytesReader(bytes: bytes)
                return try ChronicleModel.FieldValues(layout: layout, stored: count, from: &reader)
            }
            #expect(read.dictionary == oracle.filter { layout.contains($0.key) })
            for place in layout.indices where values.isLaid(as: layout) {
                #expect(read.holdsSame(at: place, as: values) == true)
            }
        }
    }
}
