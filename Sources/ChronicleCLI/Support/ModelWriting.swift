@_spi(Operator) import Chronicle
import ChronicleSchema
import Foundation
import ChronicleProjections

/// What the generic `create`, `update`, `delete` and `restore` do: read the store by its
/// recorded model (``ModelReading``), decide the command by the model's rules, append the
/// decision with the keys that hold it against other processes.
enum ModelWriting {
    /// Decides `command` on the store and appends it; returns the decision appended.
    static func run(_ command: (ChronicleModel) throws -> ChronicleModel.Command, store: StoreOptions) async throws {
        let reading = try ModelReading(store, forDecisions: true)
        let decision = try ChronicleModel.Decider(reading.model).decide(try command(reading.model), reading: reading.replayed)
        _ = try await ModelAppend.append(decision, to: try StoreAccess.openLog(store))
    }

    /// The values of `field=value` arguments, typed by the entity's fields; `field+=ID` and
    /// `field-=ID` (a set's members) are returned apart.
    static func values(_ assignments: [String], of entity: ChronicleModel.Entity) throws
        -> (values: [String: ChronicleModel.FieldValue], added: [(String, UUID)], removed: [(String, UUID)]) {
        var values: [String: ChronicleModel.FieldValue] = [:]
        var added: [(String, UUID)] = [], removed: [(String, UUID)] = []
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw RefusedInput("expected field=value, found \(quoted(assignment))")
            }
            var name = String(assignment[..<equals])
            let text = String(assignment[assignment.index(after: equals)...])
            let sign = name.last
            if sign == "+" || sign == "-" { name.removeLast() }
            guard let field = entity.field(named: name) else {
                throw RefusedInput("\(entity.name) has no field '\(name)' (it has \(entity.fields.map(\.name).joined(separator: ", ")))")
            }
            if sign == "+" || sign == "-" {
                guard case .references = field.type else { throw RefusedInput("\(name) is not a set: '\(name)\(sign!)=' adds or removes a member of one") }
                let member = try parseID(text, what: name)
                if sign == "+" { added.append((name, member)) } else { removed.append((name, member)) }
                continue
            }
            guard values[name] == nil else { throw RefusedInput("\(name) is given twice") }
            values[name] = try value(text, of: field)
        }
        return (values, added, removed)
    }

    /// `text` as a value of `field`: a number, true or false, ids separated by commas for a
    /// set, text for the rest (the field's rules check it). Nothing after `=` is no value
    /// (``ChronicleModel/FieldValue/null``: an update clears the field) for a field that is
    /// not text; for text, it is the empty text.
    static func value(_ text: String, of field: ChronicleModel.Field) throws -> ChronicleModel.FieldValue {
        if text.isEmpty, field.type != .text, field.type.name != "references" { return .null }
        switch field.type {
        case .integer:
            guard let number = Int(text) else { throw RefusedInput("\(field.name) must be an integer (got \(quoted(text)))") }
            return .integer(number)
        case .number:
            guard let number = Double(text), number.isFinite else { throw RefusedInput("\(field.name) must be a number (got \(quoted(text)))") }
            return .number(number)
        case .boolean:
            guard let flag = Bool(text) else { throw RefusedInput("\(field.name) must be true or false (got \(quoted(text)))") }
            return .boolean(flag)
        case .references:
            let ids = try text.split(separator: ",").map { try parseID(String($0), what: field.name) }
            return .ids(ChronicleModel.sortedIDs(ids))
        case .text, .decimal, .day, .timestamp, .reference:
            return .text(text)
        }
    }
}

/// `text` in double quotes, escaped as JSON: what a person typed, newlines and all, on one line.
private func quoted(_ text: String) -> String { ChronicleModel.FieldValue.text(text).json }
