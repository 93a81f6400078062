import ChronicleSchema
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
}
