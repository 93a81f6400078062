import Foundation
import JSONText

extension ChronicleModel {
    /// An entity as JSON, its shape derived from the model: `id` first, then every field in
    /// the order declared, `null` for an absent optional, a set as an array of ids.
    ///
    /// ```swift
    /// model.json(of: note)   // {"id":"0190…","body":"…","day":"2026-03-01","folderId":null,"labels":[]}
    /// ```
    public func json(of state: EntityState) -> String {
        var members = ["\"id\":" + JSONQuoting.quoted(state.id.uuidString.lowercased())]
        for field in entity(named: state.entity)?.fields ?? [] {
            members.append(JSONQuoting.quoted(field.name) + ":" + (state.values[field.name]?.json ?? "null"))
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A row of `aggregate` as JSON: its key member first, then its measures in the order declared.
    public func json(of row: AggregateRow, in aggregate: Aggregate) -> String {
        var members = [JSONQuoting.quoted(aggregate.key) + ":" + row.key.json]
        for measure in aggregate.measures {
            members.append(JSONQuoting.quoted(measure.name) + ":" + (row.measures[measure.name]?.json ?? "null"))
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}

extension ChronicleModel.FieldValue {
    /// The value as JSON: text (days, timestamps, decimals and references too) as a string.
    public var json: String {
        switch self {
        case .text(let text): JSONQuoting.quoted(text)
        case .integer(let value): String(value)
        case .number(let value): value.isFinite ? "\(value)" : "null"
        case .boolean(let value): value ? "true" : "false"
        case .ids(let ids): "[" + ids.map { JSONQuoting.quoted($0.uuidString.lowercased()) }.joined(separator: ",") + "]"
        case .null: "null"
        }
    }
}
