import ArgumentParser
import ChronicleSchema
import Foundation

/// `chronicle model`: the app's model the store records (entities, fields, rules, aggregates).
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show the app's model the store records: entities, fields, rules and aggregates.")

    @OptionGroup var store: StoreOptions
    @Flag(help: "Print the model's record: one JSON object.") var json = false

    func run() async throws {
        let recorded = try RecordedModel(log: try StoreAccess.openLog(store))
        if json {
            CLIOutput.line(String(decoding: recorded.bytes, as: UTF8.self))
        } else {
            // A store written before models were recorded holds the todo app's events.
            CLIOutput.line(Self.describe(recorded.model)
                           + (recorded.recordedVersion == nil ? "\n(not recorded in the store: the built-in todo app's model)" : ""))
        }
    }

    /// The model for people: one block per entity, one line per field, then the aggregates.
    static func describe(_ model: ChronicleModel) -> String {
        var lines = ["model \(model.name), version \(model.version)"]
        for entity in model.entities {
            lines.append("")
            lines.append("\(entity.name) (\(entity.stream)-<id>): \(entity.eventTypes.joined(separator: ", "))")
            let rows = entity.fields.map { field in
                var type = field.type.name + (field.type.target.map { " \($0)" } ?? "") + (field.isOptional ? "?" : "")
                if let value = field.defaultValue { type += " = \(text(value))" }
                var notes = field.rules.map(text)
                if let unique = field.unique { notes.append("unique (\(unique.rawValue))") }
                if let deletion = field.onParentDeletion { notes.append(deletion.rawValue) }
                if let set = field.setBy { notes.append("set by \(set.on)/\(set.off)") }
                return ["  " + field.name, type, notes.joined(separator: ", ")]
            }
            lines.append(CLIOutput.table(["  FIELD", "TYPE", "RULES"], rows))
        }
        for aggregate in model.aggregates {
            let measures = aggregate.measures.map { measure in
                switch measure.kind {
                case .count: measure.name + " = count" + (measure.field.map { " where \($0)" } ?? "")
                case .sum: measure.name + " = sum of " + (measure.field ?? "")
                }
            }
            lines.append("")
            lines.append("\(aggregate.name): live \(aggregate.entity) by \(aggregate.groupedBy) as \(aggregate.key); "
                         + measures.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    static func text(_ value: ChronicleModel.FieldValue) -> String {
        switch value {
        case .text(let text): "\"\(text)\""
        case .integer(let number): String(number)
        case .number(let number): String(number)
        case .boolean(let flag): String(flag)
        case .ids, .null: value.json
        }
    }

    static func text(_ rule: ChronicleModel.FieldRule) -> String {
        switch rule {
        case .minLength(let count), .maxLength(let count): "\(rule.name) \(count)"
        case .range(let range): "range \(range.lowerBound)…\(range.upperBound)"
        case .numberRange(let range): "numberRange \(range.lowerBound)…\(range.upperBound)"
        case .pattern(let pattern): "pattern \(pattern)"
        default: rule.name
        }
    }
}
