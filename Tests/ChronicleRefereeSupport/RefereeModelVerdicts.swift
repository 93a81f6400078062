@_spi(Operator) import Chronicle
import ChronicleReferee
import Foundation

// A declared model's store beside the referee's fold of the server's order
// (`RefereeModelState`, which reads the model's record and the events as JSON alone).

extension RefereeModelState {
    /// Where what `store` shows of its model (every entity, every aggregate's rows) differs
    /// from the referee's fold of `serverOrder`, one line per entity or aggregate.
    public static func problems(of store: ChronicleStore, serverOrder: [RefereeEvent], device: String) async throws -> [String] {
        let expected = fold(serverOrder, model: try RefereeModel(record: store.model.record()))
        var problems: [String] = []
        for entity in store.model.entities {
            var shown: [String: [String: RefereeValue]] = [:]
            for state in try await store.entities(entity.name) {
                var values: [String: RefereeValue] = [:]
                for field in entity.fields { values[field.name] = state.values[field.name].map(refereeValue) ?? .null }
                shown[state.id.uuidString.lowercased()] = values
            }
            let folded = expected.shown(entity.name)
            if shown != folded {
                let differing = Set(shown.keys).union(folded.keys).filter { shown[$0] != folded[$0] }.sorted().prefix(2)
                problems.append("device \(device)'s \(entity.name) entities differ from the referee's: "
                                + differing.map { "\($0): shown \(shown[$0].map { "\($0)" } ?? "nothing"), referee \(folded[$0].map { "\($0)" } ?? "nothing")" }
                                    .joined(separator: "; "))
            }
        }
        for aggregate in store.model.aggregates {
            var rows: [String: [String: RefereeValue]] = [:]
            for row in try await store.rows(aggregate.name) {
                var values: [String: RefereeValue] = [aggregate.key: refereeValue(row.key)]
                for (name, value) in row.measures { values[name] = refereeValue(value) }
                rows["\(refereeValue(row.key))"] = values
            }
            let folded = expected.rows(aggregate.name)
            if rows != folded {
                problems.append("device \(device)'s \(aggregate.name) rows differ from the referee's: shown \(rows.values.sorted { "\($0)" < "\($1)" }.prefix(3)), "
                                + "referee \(folded.values.sorted { "\($0)" < "\($1)" }.prefix(3))")
            }
        }
        return problems
    }

    private static func refereeValue(_ value: ChronicleModel.FieldValue) -> RefereeValue {
        switch value {
        case .text(let text): .string(text)
        case .integer(let number): .integer(number)
        case .number(let number): .number(number)
        case .boolean(let flag): .bool(flag)
        case .ids(let ids): .array(ids.map { $0.uuidString.lowercased() }.sorted().map(RefereeValue.string))
        case .null: .null
        }
    }
}
