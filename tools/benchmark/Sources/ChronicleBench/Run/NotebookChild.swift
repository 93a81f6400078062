/// The child side of the notebook's workloads: the function each system runs, and, for a
/// read, what it found (``NotebookReadTally``), which the parent checks the systems agree on.
enum NotebookChild {
    /// Runs `task` (a notebook workload); returns the operations, the timed seconds and what
    /// a read found (nil for the others, whose contents ``NotebookContents`` sums up after).
    static func run(_ task: ChildTask) async throws -> (Int, Double, String?) {
        let isRead = Workload.notebookReads.contains(task.workload)
        switch (task.workload, task.system) {
        case (.notesAppendBatch, .chronicleNotebook): return untallied(try await ChronicleLogWorkloads.appendBatch(task))
        case (.notesAppendBatch, .grdbNotebook): return untallied(try await GRDBNotebookWorkloads.appendBatch(task))
        case (.notesApplyBatch, .chronicleNotebook): return untallied(try await NotebookWorkloads.applyBatch(task))
        case (.notesApplyBatch, .grdbNotebook): return untallied(try await GRDBNotebookWorkloads.applyBatch(task))
        case (.notesRebuild, .chronicleNotebook): return untallied(try NotebookWorkloads.rebuild(task))
        case (.notesRebuild, .grdbNotebook): return untallied(try GRDBNotebookWorkloads.rebuild(task))
        case (_, .chronicleNotebook) where isRead:
            return tallied(task, try NotebookWorkloads.reads(task, keys: try keys(task)))
        case (_, .grdbNotebook) where isRead:
            return tallied(task, try GRDBNotebookWorkloads.reads(task, keys: try keys(task)))
        default:
            throw BenchError.unsupported("\(task.workload.rawValue) has no \(task.system.rawValue) variant")
        }
    }

    private static func keys(_ task: ChildTask) throws -> NotebookReadKeys {
        try NotebookReadKeys.load(dataset: task.dataset, seed: task.seed)
    }

    private static func untallied(_ result: (Int, Double)) -> (Int, Double, String?) {
        (result.0, result.1, nil)
    }

    private static func tallied(_ task: ChildTask, _ result: (Int, Double, NotebookReadTally)) -> (Int, Double, String?) {
        progress("    \(task.system.rawValue): \(result.0) reads, \(result.2.description)")
        return (result.0, result.1, result.2.description)
    }
}
