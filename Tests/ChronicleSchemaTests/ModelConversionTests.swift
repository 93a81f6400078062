import ChronicleSchema
import Foundation
import Testing

/// Upcasters declared by `convert(_:from:)`: an event written when a field had another type reads
/// as the field's type now. Every expected value here is written out by hand.
@Suite struct ModelConversionTests {
    static let id = UUID(uuidString: "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee")!
    static let stream = "reading-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"

    /// Version 2 of a model of readings: each field had another type in version 1.
    static let version2: ChronicleModel = {
        do {
            return try ChronicleModel("meter", version: 2) { model in
                model.entity("Reading") { reading in
                    reading.number("level", optional: true)
                    reading.convert("level", from: .integer)
                    reading.decimal("price", optional: true)
                    reading.convert("price", from: .integer)
                    reading.convert("price", from: .number)
                    reading.timestamp("taken", optional: true)
                    reading.convert("taken", from: .day)
                    reading.integer("checked", optional: true)
                    reading.convert("checked", from: .boolean)
                    reading.text("label", optional: true)
                    reading.convert("label", from: .integer)
                }
            }
        } catch {
            preconditionFailure("the meter model is declared wrong: \(error)")
        }
    }()

    func read(_ data: String) throws -> [String: ChronicleModel.FieldValue] {
        let event = try ChronicleModel.EventReader(Self.version2).read(type: "ReadingCreated", stream: Self.stream, data: Data(data.utf8))
        guard case .created(let values) = event.change else { return [:] }
        return values.dictionary
    }

    @Test func valuesOfAFormerTypeReadAsTheTypeNow() throws {
        #expect(try read(#"{"level":3,"price":7,"taken":"2026-03-01","checked":true,"label":42}"#)
                == ["level": .number(3), "price": .text("7"), "taken": .text("2026-03-01T00:00:00.000Z"),
                    "checked": .integer(1), "label": .text("42")])
        #expect(try read(#"{"price":0.1}"#) == ["price": .text("0.1")])
        #expect(try read(#"{"price":1e-05}"#) == ["price": .text("0.00001")])
        // Values of the type now are read as they are.
        #expect(try read(#"{"level":2.5,"price":"12.50","taken":"2026-03-01T09:30:00.000Z","checked":4,"label":"x"}"#)
                == ["level": .number(2.5), "price": .text("12.50"), "taken": .text("2026-03-01T09:30:00.000Z"),
                    "checked": .integer(4), "label": .text("x")])
        // A value of neither type is refused as before, naming the type now.
        #expect(throws: ChronicleModel.EventProblem.self) { try read(#"{"checked":"yes"}"#) }
    }

    @Test func onlyConversionsThatKeepEveryValueAreDeclared() throws {
        #expect(throws: ChronicleModelError.self) {
            try ChronicleModel("meter", version: 1) { model in
                model.entity("Reading") { reading in
                    reading.integer("level")
                    reading.convert("level", from: .text)
                }
            }
        }
        do {
            _ = try ChronicleModel("meter", version: 1) { model in
                model.entity("Reading") { reading in
                    reading.integer("level")
                    reading.convert("level", from: .number)
                }
            }
            Issue.record("a number converted into an integer was declared")
        } catch {
            #expect("\(error)".contains("field 'level': cannot be converted from number to integer"), "\(error)")
        }
    }

    @Test func theRecordKeepsTheFormerTypes() throws {
        let record = Self.version2.record()
        #expect(String(decoding: record, as: UTF8.self).contains(#""convertedFrom":["integer","number"]"#))
        #expect(try ChronicleModel(record: record) == Self.version2)
    }

    @Test func aNewVersionMustConvertEveryTypeTheStoreMayHold() throws {
        func meter(_ version: Int, _ declare: (inout ChronicleModel.EntityDeclaration) -> Void) throws -> ChronicleModel {
            try ChronicleModel("meter", version: version) { model in model.entity("Reading") { declare(&$0) } }
        }
        let first = try meter(1) { $0.integer("price", optional: true) }
        let unconverted = try meter(2) { $0.decimal("price", optional: true) }
        #expect(throws: ChronicleModelError.self) { try unconverted.evolution(from: first) }
        do {
            _ = try unconverted.evolution(from: first)
        } catch {
            #expect("\(error)".contains(#"its type changed from integer in version 1 to decimal: events written before would not read (declare convert("price", from: .integer))"#), "\(error)")
        }
        let second = try meter(2) { reading in
            reading.decimal("price", optional: true)
            reading.convert("price", from: .integer)
        }
        _ = try second.evolution(from: first)
        // Version 3 keeps text, converted from decimal only: the integers version 1 wrote would not read.
        let third = try meter(3) { reading in
            reading.text("price", optional: true)
            reading.convert("price", from: .decimal)
        }
        #expect(throws: ChronicleModelError.self) { try third.evolution(from: second) }
        let fourth = try meter(3) { reading in
            reading.text("price", optional: true)
            reading.convert("price", from: .integer)
            reading.convert("price", from: .decimal)
        }
        _ = try fourth.evolution(from: second)
    }
}
