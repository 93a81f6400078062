extension ChronicleModel {
    /// Rows kept up from the live entities of one kind, one per value of a field: counts,
    /// counts where a boolean holds, sums. Rows whose every count is 0 do not exist.
    public struct Aggregate: Sendable, Hashable {
        /// e.g. `DailyStat`.
        public var name: String
        /// The entity counted, e.g. `Todo`.
        public var entity: String
        /// The field grouped by, e.g. `deadline`.
        public var groupedBy: String
        /// The row's member holding the grouped value, e.g. `date`.
        public var key: String
        /// The row's other members.
        public var measures: [Measure]

        public init(name: String, entity: String, groupedBy: String, key: String, measures: [Measure]) {
            self.name = name
            self.entity = entity
            self.groupedBy = groupedBy
            self.key = key
            self.measures = measures
        }
    }

    /// One member of an aggregate's rows.
    public struct Measure: Sendable, Hashable, Codable {
        /// `count` (of the entities, or of those whose boolean `field` is true) or `sum` (of `field`).
        public enum Kind: String, Sendable, Hashable, Codable {
            case count, sum
        }
        /// The row's member, e.g. `completed`.
        public var name: String
        public var kind: Kind
        /// For a count: the boolean that must be true (nil: every entity); for a sum: the number summed.
        public var field: String?

        public init(name: String, kind: Kind, field: String? = nil) {
            self.name = name
            self.kind = kind
            self.field = field
        }
    }

    /// Where an aggregate's measures are declared.
    public struct AggregateDeclaration: Sendable {
        var measures: [Measure] = []

        /// Counts the entities of the row, or those whose boolean `field` is true.
        public mutating func count(_ name: String, where field: String? = nil) {
            measures.append(Measure(name: name, kind: .count, field: field))
        }

        /// Sums the integer, number or decimal `field` over the entities of the row.
        public mutating func sum(_ name: String, of field: String) {
            measures.append(Measure(name: name, kind: .sum, field: field))
        }
    }
}
