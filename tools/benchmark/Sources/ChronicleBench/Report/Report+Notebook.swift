import Foundation

extension Report {
    /// The notebook's workloads: `chronicle-notebook` (its declared model's stored entities on
    /// Chronicle's log) beside `grdb-notebook` (its tables on SQLite), with their ratio.
    func notebookTable() -> String {
        let notebook = workloads.filter(\.isNotebook).filter { workload in
            results.spread(workload, .chronicleNotebook) != nil || results.spread(workload, .grdbNotebook) != nil
        }
        guard !notebook.isEmpty else { return "" }
        var rows: [[String]] = [["workload", "unit", "chronicle-notebook", "grdb-notebook", "chronicle-notebook ÷ grdb-notebook",
                                 "peak anon MiB c / g"]]
        for workload in notebook {
            let cells = [BenchSystem.chronicleNotebook, .grdbNotebook].map { system in
                results.spread(workload, system).map { Self.rate($0) } ?? "–"
            }
            let memory = [BenchSystem.chronicleNotebook, .grdbNotebook].map { system in
                results.peakAnon(workload, system).map { String(format: "%.0f", Double($0) / 1_048_576) } ?? "–"
            }.joined(separator: " / ")
            rows.append([workload.rawValue, workload.unit] + cells + [
                results.ratio(workload, .chronicleNotebook, over: .grdbNotebook).map { Self.ratio($0) } ?? "–",
                memory,
            ])
        }
        return "\nthe notebook, a second declared model (its own data set), beside GRDB:\n" + Self.render(rows)
    }
}
