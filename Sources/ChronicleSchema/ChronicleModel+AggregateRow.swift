import Foundation

extension ChronicleModel {
    /// One row of an aggregate: the grouped value and each measure's.
    public struct AggregateRow: Sendable, Hashable {
        /// The value of the grouped field the row is about, e.g. a day.
        public var key: FieldValue
        /// Each measure's value by its name: an integer for a count and for a sum of integers,
        /// a number for a sum of numbers, text for a sum of decimals. Sums of numbers and of
        /// decimals are exact sums of their decimal spellings: they do not depend on the order.
        /// A number beyond what an exact sum holds (about 10^125 and more, or under 10^-128)
        /// adds nothing.
        public var measures: [String: FieldValue]

        /// A row from its parts.
        public init(key: FieldValue, measures: [String: FieldValue]) {
            self.key = key
            self.measures = measures
        }
    }
}

extension ChronicleModel.Snapshot {
    /// The rows of aggregate `name` over the shown entities, sorted by key (nil: no such aggregate).
    /// A row exists while one shown entity has its key.
    public func rows(of name: String) -> [ChronicleModel.AggregateRow]? {
        guard let aggregate = model.aggregates.first(where: { $0.name == name }) else { return nil }
        return rows(of: name, among: shown(aggregate.entity))
    }

    /// ``rows(of:)`` over `shown`, the entities of the aggregate's entity as ``shown(_:)`` shows
    /// them (computed once for a caller that reads them too).
    public func rows(of name: String, among shown: [ChronicleModel.EntityState]) -> [ChronicleModel.AggregateRow]? {
        guard let aggregate = model.aggregates.first(where: { $0.name == name }),
              let entity = model.entity(named: aggregate.entity),
              let grouped = entity.field(named: aggregate.groupedBy) else { return nil }
        var groups: [ChronicleModel.FieldValue: [ChronicleModel.EntityState]] = [:]
        for state in shown {
            // Grouped by the entity's own value: a unique value shown with a suffix (`Work (2)`)
            // counts in its value's row.
            guard let key = self.state(of: aggregate.entity, id: state.id)?.values[grouped.name] else { continue }
            groups[key, default: []].append(state)
        }
        return groups.map { key, states in
            var measures: [String: ChronicleModel.FieldValue] = [:]
            for measure in aggregate.measures {
                measures[measure.name] = Self.measure(measure, of: states, in: entity)
            }
            return ChronicleModel.AggregateRow(key: key, measures: measures)
        }.sorted { $0.key.sortsBefore($1.key) }
    }

    private static func measure(_ measure: ChronicleModel.Measure, of states: [ChronicleModel.EntityState],
                                in entity: ChronicleModel.Entity) -> ChronicleModel.FieldValue {
        switch measure.kind {
        case .count:
            guard let field = measure.field else { return .integer(states.count) }
            return .integer(states.count { $0.values[field] == .boolean(true) })
        case .sum:
            guard let field = measure.field, let type = entity.field(named: field)?.type else { return .integer(0) }
            switch type {
            case .integer:
                return .integer(states.reduce(0) { sum, state in
                    if case .integer(let value)? = state.values[field] { sum &+ value } else { sum }
                })
            case .decimal:
                let total = states.reduce(Decimal(0)) { sum, state in
                    if case .text(let text)? = state.values[field], let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                        sum + value
                    } else {
                        sum
                    }
                }
                return .text(total.description)
            default:
                // Each number as its shortest decimal spelling, summed exactly: the total does not
                // depend on the order, and 0.1 + 0.2 is 0.3.
                let total = states.reduce(Decimal(0)) { sum, state in
                    let spelt: String? = switch state.values[field] {
                    case .number(let value)? where value.isFinite: "\(value)"
                    case .integer(let value)?: "\(value)"
                    default: nil
                    }
                    return spelt.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }.map { sum + $0 } ?? sum
                }
                return .number(Double(total.description) ?? 0)
            }
        }
    }
}

extension ChronicleModel.FieldValue {
    /// The order lists sort values in: numbers by value, text by its UTF-8 bytes (days and
    /// timestamps by time), false before true; values of different kinds by kind.
    public func sortsBefore(_ other: ChronicleModel.FieldValue) -> Bool {
        switch (self, other) {
        case let (.integer(a), .integer(b)): a < b
        case let (.number(a), .number(b)): a < b
        case let (.integer(a), .number(b)): Double(a) < b
        case let (.number(a), .integer(b)): a < Double(b)
        case let (.text(a), .text(b)): Self.bytesPrecede(a, b)
        case let (.boolean(a), .boolean(b)): !a && b
        case let (.ids(a), .ids(b)): a.map(\.uuidString).lexicographicallyPrecedes(b.map(\.uuidString))
        default: kindOrder < other.kindOrder
        }
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s, compared in place (a range read compares
    /// every value it returns).
    private static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
    }

    private var kindOrder: Int {
        switch self {
        case .boolean: 0
        case .integer, .number: 1
        case .text: 2
        case .ids: 3
        case .null: 4
        }
    }
}
