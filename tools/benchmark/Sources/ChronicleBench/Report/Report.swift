import Foundation

/// The table on stdout and the JSON file.
struct Report {
    let machine: String
    let results: BenchResults
    let workloads: [Workload]

    // MARK: - JSON

    /// `{"machine": …, "results": [{"workload", "system", "unit", "median", "min", "max", "peakAnonBytes"}]}`
    func json() throws -> Data {
        struct Entry: Encodable {
            var workload: String
            var system: String
            var unit: String
            var median: Double
            var min: Double
            var max: Double
            var peakAnonBytes: Int
        }
        struct Document: Encodable {
            var machine: String
            var results: [Entry]
        }
        var entries: [Entry] = []
        for workload in workloads {
            for system in workload.systems {
                guard let spread = results.spread(workload, system) else { continue }
                entries.append(Entry(workload: workload.rawValue, system: system.rawValue, unit: workload.unit,
                                     median: spread.median.rounded(), min: spread.min.rounded(), max: spread.max.rounded(),
                                     peakAnonBytes: results.peakAnon(workload, system) ?? 0))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Document(machine: machine, results: entries))
    }

    // MARK: - Table

    func table() -> String {
        var rows: [[String]] = [["workload", "unit", "chronicle", "grdb", "lmdb-raw", "chronicle ÷ grdb",
                                 "chronicle ÷ lmdb-raw", "peak anon MiB c / g / l"]]
        for workload in workloads where !workload.isNotebook {
            let cell: (BenchSystem) -> String = { system in
                results.spread(workload, system).map { Self.rate($0) } ?? "–"
            }
            let ratio: (BenchSystem) -> String = { system in
                results.ratio(workload, over: system).map { Self.ratio($0) } ?? "–"
            }
            let memory = BenchSystem.compared.map { system in
                results.peakAnon(workload, system).map { String(format: "%.0f", Double($0) / 1_048_576) } ?? "–"
            }.joined(separator: " / ")
            rows.append([workload.rawValue, workload.unit, cell(.chronicle), cell(.grdb), cell(.lmdbRaw),
                         ratio(.grdb), ratio(.lmdbRaw), memory])
        }
        var text = "machine: \(machine)\n"
        text += "each cell: median (min–max) of the runs; ratios are taken run by run, side by side, then summarised\n\n"
        if rows.count > 1 { text += Self.render(rows) }
        if let indexed = results.spread(.appendBatch, .lmdbIndexed) {
            text += "\ndiagnostics: append-batch on raw LMDB with Chronicle's id and stream indexes: \(Self.rate(indexed)) events/s"
            if let floor = results.ratio(.appendBatch, .lmdbIndexed, over: .lmdbRaw) {
                text += "; ÷ lmdb-raw \(Self.ratio(floor))"
            }
            if let chronicle = results.ratio(.appendBatch, over: .lmdbIndexed) {
                text += "; chronicle ÷ it \(Self.ratio(chronicle))"
            }
            text += "\n"
        }
        let keyed = [Workload.appendBatch, .appendSingle1, .appendSingle8].compactMap { workload in
            results.ratio(workload, .chronicleKeys, over: .chronicle).map { "\(workload.rawValue) \(Self.ratio($0))" }
        }
        if !keyed.isEmpty {
            text += "\nappend keys (those the store's commands carry): chronicle+keys ÷ chronicle: \(keyed.joined(separator: ", "))\n"
        }
        for (system, title) in [(BenchSystem.chronicleEntities, "the same entities read generically (EntityState, chronicle-entities)")] {
            let figures = Workload.allCases.compactMap { workload -> String? in
                guard let spread = results.spread(workload, system) else { return nil }
                let overChronicle = results.ratio(workload, system, over: .chronicle).map { "÷ chronicle \(Self.ratio($0))" } ?? ""
                let overGRDB = results.ratio(workload, system, over: .grdb).map { ", ÷ grdb \(Self.ratio($0))" } ?? ""
                return "\(workload.rawValue) \(Self.rate(spread)) \(workload.unit) (\(overChronicle)\(overGRDB))"
            }
            if !figures.isEmpty { text += "\n\(title): " + figures.joined(separator: "; ") + "\n" }
        }
        text += syncTable()
        text += notebookTable()
        let checks = targets()
        if !checks.isEmpty {
            text += "\ntargets (median ratios of this run):\n"
            for check in checks {
                text += "  [\(check.holds ? "holds" : "MISSED")] \(check.text)\n"
            }
        }
        return text
    }

    /// Push and pull through each server backend: the LMDB server, one PostgreSQL instance,
    /// three instances on one database (one client or device per instance).
    func syncTable() -> String {
        let systems: [BenchSystem] = [.chronicle, .chroniclePostgres, .chroniclePostgres3]
        let workloads = [Workload.syncPush, .syncPull].filter { workload in
            self.workloads.contains(workload) && results.spread(workload, .chroniclePostgres) != nil
        }
        guard !workloads.isEmpty else { return "" }
        var rows: [[String]] = [["workload", "unit", "lmdb (1)", "postgres (1)", "postgres (3)", "postgres (1) ÷ lmdb",
                                 "postgres (3) ÷ (1)", "peak anon MiB l / p1 / p3"]]
        for workload in workloads {
            let cells = systems.map { system in results.spread(workload, system).map { Self.rate($0) } ?? "–" }
            let memory = systems.map { system in
                results.peakAnon(workload, system).map { String(format: "%.0f", Double($0) / 1_048_576) } ?? "–"
            }.joined(separator: " / ")
            rows.append([workload.rawValue, workload.unit] + cells + [
                results.ratio(workload, .chroniclePostgres, over: .chronicle).map { Self.ratio($0) } ?? "–",
                results.ratio(workload, .chroniclePostgres3, over: .chroniclePostgres).map { Self.ratio($0) } ?? "–",
                memory,
            ])
        }
        return "\nsync through each server backend (instances in brackets; one client or device per instance):\n"
            + Self.render(rows)
    }

    /// The issue's targets, checked against this run.
    func targets() -> [(holds: Bool, text: String)] {
        var checks: [(Bool, String)] = []
        func check(_ spread: Spread?, atLeast goal: Double, _ label: String, format: (Double) -> String = { Self.ratioNumber($0) }) {
            guard let spread else { return }
            checks.append((spread.median >= goal, "\(label): \(format(spread.median)) (runs \(format(spread.min))–\(format(spread.max))), target ≥ \(format(goal))"))
        }
        // The performance issue's goals (the first benchmark issue asked 1.5× and 0.5×).
        check(results.ratio(.appendBatch, over: .grdb), atLeast: 2, "append-batch chronicle ÷ grdb")
        check(results.ratio(.appendBatch, over: .lmdbRaw), atLeast: 0.33, "append-batch chronicle ÷ lmdb-raw")
        check(results.ratio(.appendSingle8, .chronicle, over: .chronicle, otherWorkload: .appendSingle1), atLeast: 4,
              "append-single chronicle 8 writers ÷ 1 writer")
        for workload in [Workload.appendBatch, .appendSingle8] {
            check(results.ratio(workload, .chronicleKeys, over: .chronicle), atLeast: 0.9,
                  "\(workload.rawValue) chronicle+keys ÷ chronicle (append keys cost under 10%)")
        }
        check(results.ratio(.rebuild, over: .grdb), atLeast: 3, "rebuild chronicle ÷ grdb")
        check(results.spread(.rebuild, .chronicle), atLeast: 1_000_000, "rebuild chronicle events/s", format: Self.number)
        if let peak = results.peakAnon(.rebuild, .chronicle) {
            checks.append((peak < 150 << 20, "rebuild chronicle peak anonymous memory: \(String(format: "%.1f", Double(peak) / 1_048_576)) MiB, target < 150 MiB"))
        }
        for read in [Workload.readTodo, .readDayStats, .readDayTodos] {
            check(results.ratio(read, over: .grdb), atLeast: 2, "\(read.rawValue) chronicle ÷ grdb")
        }
        for system in [BenchSystem.chronicle, .chroniclePostgres] {
            check(results.spread(.syncPush, system), atLeast: 50_000, "sync-push \(system.rawValue) events/s", format: Self.number)
            check(results.spread(.syncPull, system), atLeast: 50_000,
                  "sync-pull \(system.rawValue) events/s (pulled and merged into the read models)", format: Self.number)
        }
        return checks
    }

    // MARK: - Formatting

    static func number(_ value: Double) -> String {
        switch value {
        case 10_000_000...: String(format: "%.1fM", value / 1e6)
        case 1_000_000...: String(format: "%.2fM", value / 1e6)
        case 100_000...: String(format: "%.0fk", value / 1e3)
        case 10_000...: String(format: "%.1fk", value / 1e3)
        case 1_000...: String(format: "%.2fk", value / 1e3)
        default: String(format: "%.0f", value)
        }
    }

    static func rate(_ spread: Spread) -> String {
        "\(number(spread.median)) (\(number(spread.min))–\(number(spread.max)))"
    }

    static func ratioNumber(_ value: Double) -> String {
        value >= 10 ? String(format: "%.1f×", value) : String(format: "%.2f×", value)
    }

    static func ratio(_ spread: Spread) -> String {
        "\(ratioNumber(spread.median)) (\(ratioNumber(spread.min))–\(ratioNumber(spread.max)))"
    }

    /// A Markdown table (readable as is in a terminal).
    static func render(_ rows: [[String]]) -> String {
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ row: [String]) -> String {
            "| " + row.enumerated().map { i, cell in cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |\n"
        }
        var text = line(rows[0])
        text += "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|\n"
        for row in rows.dropFirst() { text += line(row) }
        return text
    }
}
