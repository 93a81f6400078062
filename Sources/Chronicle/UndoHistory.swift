import ChronicleLog
import Foundation

/// This store's undo and redo stacks, read from the notes of its batches (``HistoryNote``).
///
/// The history is durable and shared: every process appending to the store notes its
/// batches in their transaction, so any process reads the same history. Pulled events carry
/// no note: the history is this device's own.
///
/// A step is one command (a user's deletion with its cascade is one batch) or the commands
/// of one ``ChronicleStore/undoGroup(_:)``. Undoing a step moves it to the redo stack; a
/// redo moves it back; a new command empties the redo stack.
struct UndoHistory {
    struct Step {
        /// The first position of the step's first batch: the step's name in notes.
        let id: UInt64
        /// The group the step's commands share, if any.
        let group: UUID?
        /// The step's command batches, oldest first.
        var commands: [ClosedRange<UInt64>]
        /// Its undo and redo batches, oldest first (they alternate, starting with an undo).
        var reverts: [ClosedRange<UInt64>] = []
        var isUndone = false

        /// The batches whose events are in effect: an undone step's last undo; a redone
        /// step's last redo; otherwise its commands.
        var inEffect: [ClosedRange<UInt64>] {
            if let last = reverts.last { return [last] }
            return commands
        }

        /// Every batch of the step.
        var batches: [ClosedRange<UInt64>] { commands + reverts }
    }

    private(set) var steps: [UInt64: Step] = [:]
    /// Steps in effect, oldest first: `undo` takes the last.
    private(set) var undoStack: [UInt64] = []
    /// Steps undone and not discarded, in undo order: `redo` takes the last.
    private(set) var redoStack: [UInt64] = []

    /// The batches of the steps undone now (see ``cancelsOut(_:)``).
    private(set) var cancelled: [ClosedRange<UInt64>] = []

    init(notes: [AppendNote]) {
        for note in notes {
            guard let kind = HistoryNote(note.bytes) else { continue }
            switch kind {
            case .command(let group):
                if let group, let top = undoStack.last, steps[top]?.group == group {
                    steps[top]?.commands.append(note.positions)
                    continue
                }
                steps[note.positions.lowerBound] = Step(id: note.positions.lowerBound, group: group, commands: [note.positions])
                undoStack.append(note.positions.lowerBound)
                redoStack.removeAll()
            case .undo(let parts), .redo(let parts):
                let isUndo = if case .undo = kind { true } else { false }
                var start = note.positions.lowerBound
                for part in parts where part.count > 0 {
                    let range = start...(start + UInt64(part.count) - 1)
                    start += UInt64(part.count)
                    if isUndo {
                        guard let index = undoStack.lastIndex(of: part.step) else { continue }
                        undoStack.remove(at: index)
                        redoStack.append(part.step)
                    } else {
                        guard let index = redoStack.lastIndex(of: part.step) else { continue }
                        redoStack.remove(at: index)
                        undoStack.append(part.step)
                    }
                    steps[part.step]?.reverts.append(range)
                    steps[part.step]?.isUndone = isUndo
                }
            }
        }
        cancelled = steps.values.filter(\.isUndone).flatMap(\.batches)
    }

    /// Whether `position` is in a batch of a step that is undone now: such a batch and its
    /// undo cancel out, so its events do not overtake an earlier step.
    func cancelsOut(_ position: UInt64) -> Bool {
        cancelled.contains { $0.contains(position) }
    }
}
