import ChronicleSchema
import Foundation

/// One row of an aggregate as the stored read model keeps it (``ModelStates``): the grouped
/// value, how many shown entities have it, and each measure's running total. A shown entity's
/// change adds its new share and takes away its old one; a row whose members fall to 0 is removed.
///
/// ```
/// members (8) · key (a ``StoredValue``) · measures (2: count, then each a ``StoredValue``)
/// ```
///
/// Counts and sums of integers are integers (wrapping, as the fold's sums wrap); sums of
/// numbers and of decimals are kept as exact decimal text, so that taking a share away
/// leaves what summing the rest gives.
struct StoredAggregateRow: Equatable {
    var key: ChronicleModel.FieldValue
    var members: Int
    var measures: [ChronicleModel.FieldValue]

    /// What one entity's `state` adds to its row of the aggregate `plan` was made for (nil: it
    /// has no grouped value).
    init?(share state: ChronicleModel.EntityState, planned plan: SharePlan) {
        guard let key = state.values.value(at: plan.groupedBy.place, named: plan.groupedBy.name) else { return nil }
        self.key = key
        members = 1
        measures = plan.measures.map { measure in
            let value = measure.field.flatMap { state.values.value(at: $0.place, named: $0.name) }
            switch measure.kind {
            case .count:
                return .integer(measure.field == nil || value == .boolean(true) ? 1 : 0)
            case .sum:
                switch (measure.type, value) {
                case (.integer, .integer(let number)?): return .integer(number)
                case (.integer, _): return .integer(0)
                case (.decimal, .text(let text)?): return .text(Self.exact(text).description)
                case (.number, .number(let number)?) where number.isFinite: return .text(Self.exact("\(number)").description)
                case (.number, .integer(let number)?): return .text(Self.exact("\(number)").description)
                case (nil, _): return .integer(0)
                default: return .text("0")
                }
            }
        }
    }

    /// What an aggregate's shares read of an entity's state, planned once: the grouped field
    /// and each measure's field by their places among the entity's fields.
    struct SharePlan: Sendable {
        let groupedBy: (name: String, place: Int)
        let measures: [(kind: ChronicleModel.Measure.Kind, field: (name: String, place: Int)?, type: ChronicleModel.FieldType?)]

        /// The plan of `aggregate`, an aggregate of `entity`.
        init(_ aggregate: ChronicleModel.Aggregate, of entity: ChronicleModel.Entity) {
            func placed(_ name: String) -> (name: String, place: Int) {
                (name, entity.fields.firstIndex { $0.name == name } ?? entity.fields.count)
            }
            groupedBy = placed(aggregate.groupedBy)
            measures = aggregate.measures.map { measure in
                (measure.kind, measure.field.map(placed), measure.field.flatMap { entity.field(named: $0)?.type })
            }
        }

        /// Whether `a` and `b` hold the same values in every field a share reads: then, both
        /// shown, they are the same share.
        func readsTheSame(in a: ChronicleModel.EntityState, _ b: ChronicleModel.EntityState) -> Bool {
            func same(_ field: (name: String, place: Int)) -> Bool {
                a.values.value(at: field.place, named: field.name) == b.values.value(at: field.place, named: field.name)
            }
            return same(groupedBy) && measures.allSatisfy { $0.field.map(same) ?? true }
        }
    }

    /// A row of no members with the key of `share`, its measures zero as `share`'s are spelt.
    static func empty(like share: StoredAggregateRow) -> StoredAggregateRow {
        StoredAggregateRow(key: share.key, members: 0, measures: share.measures.map { measure in
            if case .integer = measure { .integer(0) } else { .text("0") }
        })
    }

    init(key: ChronicleModel.FieldValue, members: Int, measures: [ChronicleModel.FieldValue]) {
        self.key = key
        self.members = members
        self.measures = measures
    }

    /// Adds (`sign` 1) or takes away (`sign` -1) `share`, a row of the same key and aggregate.
    mutating func add(_ share: StoredAggregateRow, sign: Int) {
        members += sign * share.members
        for index in measures.indices where index < share.measures.count {
            switch (measures[index], share.measures[index]) {
            case let (.integer(total), .integer(part)):
                measures[index] = .integer(sign > 0 ? total &+ part : total &- part)
            case let (.text(total), .text(part)):
                let sum = sign > 0 ? Self.exact(total) + Self.exact(part) : Self.exact(total) - Self.exact(part)
                measures[index] = .text(sum.description)
            default:
                break
            }
        }
    }

    /// How reads show an aggregate's rows: each measure's name, and whether it is a sum of
    /// numbers (kept as exact decimal text, shown as a number). Made once for a read of many rows.
    struct Shape: Sendable {
        let measures: [(name: String, isNumberSum: Bool)]

        /// The shape of `aggregate`, an aggregate of `entity` (a model always declares it).
        init(_ aggregate: ChronicleModel.Aggregate, in entity: ChronicleModel.Entity?) {
            measures = aggregate.measures.map { measure in
                (measure.name, measure.kind == .sum && measure.field.flatMap { entity?.field(named: $0)?.type } == .number)
            }
        }
    }

    /// The row as reads show it: a sum of numbers as a number.
    func row(of aggregate: ChronicleModel.Aggregate, in entity: ChronicleModel.Entity) -> ChronicleModel.AggregateRow {
        row(shaped: Shape(aggregate, in: entity))
    }

    /// The row as reads show it, by `shape` (its aggregate's).
    func row(shaped shape: Shape) -> ChronicleModel.AggregateRow {
        var shown: [String: ChronicleModel.FieldValue] = Dictionary(minimumCapacity: shape.measures.count)
        for (measure, value) in zip(shape.measures, measures) {
            if measure.isNumberSum, case .text(let text) = value {
                shown[measure.name] = .number(Double(text) ?? 0)
            } else {
                shown[measure.name] = value
            }
        }
        return ChronicleModel.AggregateRow(key: key, measures: shown)
    }

    /// A decimal spelling as an exact value; one that is no number, or beyond what a
    /// `Decimal` holds, is 0.
    private static func exact(_ text: String) -> Decimal {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0
    }

    // MARK: - Stored bytes

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        StoredValue.append(UInt64(bitPattern: Int64(members)), to: &bytes)
        StoredValue.append(key, to: &bytes)
        StoredValue.append(UInt16(measures.count), to: &bytes)
        for measure in measures { StoredValue.append(measure, to: &bytes) }
        return bytes
    }

    /// Reads what ``encoded()`` wrote.
    /// - throws: ``ProjectionError/corruptModel(_:)`` when the bytes are not such a row.
    static func decode(_ bytes: UnsafeRawBufferPointer, aggregate: String) throws -> StoredAggregateRow {
        var reader = StoredBytesReader(bytes: bytes)
        do {
            let members = Int(Int64(bitPattern: try reader.integer(UInt64.self)))
            let key = try reader.value()
            let measures = try (0..<Int(try reader.integer(UInt16.self))).map { _ in try reader.value() }
            guard reader.remaining == 0 else { throw StoredBytesReader.Short() }
            return StoredAggregateRow(key: key, members: members, measures: measures)
        } catch {
            throw ProjectionError.corruptModel("a stored row of \(aggregate) cannot be read")
        }
    }
}
