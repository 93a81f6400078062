import ChronicleSchema
import ChronicleTodoDomain
import Foundation

/// Generates a valid history of the notebook (``NotebookModel``): every event is one the
/// model's decider could have written (a note goes only into a shown folder, is restored only
/// while its folder is shown, is pinned only when unpinned, gets a label only when it lacks it
/// and the label is shown, loses one only when it has it and the label is shown; folder names
/// never collide), with the data spelt as the decider spells it (``NotebookEventData``).
///
/// Mix (of 1,000,000 events): folders 0.30% created, 0.10% renamed, 0.05% deleted (hiding
/// their notes), 0.03% restored; labels 0.10% created, 0.03% renamed, 0.02% deleted, 0.01%
/// restored; notes 36% created (a day spread uniformly over 2026; 70% in a folder, 60% with a
/// body of 20–400 characters, 40% with a cost of 0.50–200.00), 22.4% updated (the body
/// rewritten or cleared, the day moved, the cost set or cleared, the note moved to another
/// folder or out of one), 12% pinned or unpinned, 16% labeled or unlabeled, 10% deleted, 3%
/// restored. Ids and timestamps are time-ordered (``EventStamps``).
///
/// Which note a change touches: as in the todo data set, three changes in four go to a recent
/// note (exponential over creation order, mean 5,000 notes back) and one in four to any live
/// note; `recencyShare` 0 makes every change uniform.
struct NotebookDatasetGenerator {
    private var rng: SplitMix64
    private var stamps = EventStamps()
    private var entityCount: UInt32 = 0
    private var nameSerial = 0
    private var folders = EntityPool<NamedEntity>()
    private var deletedFolders = EntityPool<NamedEntity>()
    private var labels = EntityPool<NamedEntity>()
    private var deletedLabels = EntityPool<NamedEntity>()
    private var notes = EntityPool<NoteEntity>()
    private var deletedNotes = EntityPool<NoteEntity>()
    /// Every note ever created, in creation order; deleted ones are nil until restored.
    private var creationOrder = CreationOrder<NoteEntity>()
    private let recencyShare: Double
    private let recencyMean: Double
    private let firstDay: CalendarDay

    init(seed: UInt64, recencyShare: Double = 0.75, recencyMean: Double = 5_000) {
        rng = SplitMix64(seed: seed ^ 0x4E_4F_54_45_42_4F_4F_4B)   // "NOTEBOOK": not the todo data set's draws
        self.recencyShare = recencyShare
        self.recencyMean = recencyMean
        firstDay = try! CalendarDay(year: 2026, month: 1, day: 1)
    }

    /// Calls `emit` exactly `count` times, in log order.
    mutating func generate(count: Int, _ emit: (BenchEvent) -> Void) {
        var emitted = 0
        while emitted < count {
            emit(nextEvent())
            emitted += 1
        }
    }

    /// One event of the mix (at first, five folders and five labels); a change that has
    /// nothing to act on becomes a note's update.
    private mutating func nextEvent() -> BenchEvent {
        if folders.count < 5 { return createFolder() }
        if labels.count < 5 { return createLabel() }
        if notes.isEmpty { return createNote() }
        switch rng.unit() {
        case ..<0.0030: return createFolder()
        case ..<0.0040: return renameFolder()
        case ..<0.0045: if folders.count > 20 { return deleteFolder() }
        case ..<0.0048: if !deletedFolders.isEmpty { return restoreFolder() }
        case ..<0.0058: return createLabel()
        case ..<0.0061: return renameLabel()
        case ..<0.0063: if labels.count > 20 { return deleteLabel() }
        case ..<0.0064: if !deletedLabels.isEmpty { return restoreLabel() }
        case ..<0.3664: return createNote()
        case ..<0.4864: return togglePin()
        case ..<0.6464: if let changed = changeLabels() { return changed }
        case ..<0.7464: return deleteNote()
        case ..<0.7764: if let restored = restoreNote() { return restored }
        default: break
        }
        return updateNote()
    }

    // MARK: - Folders and labels

    private mutating func createFolder() -> BenchEvent {
        let folder = NamedEntity(id: stamps.nextUUID(&rng), number: nextEntity(), in: NotebookModel.folder)
        folders.insert(folder)
        return event(folder, NotebookModel.folder.events.created, NotebookEventData.named(folderName()))
    }

    private mutating func renameFolder() -> BenchEvent {
        event(folders.random(&rng), NotebookModel.folder.events.updated, NotebookEventData.named(folderName()))
    }

    /// Hides the folder's notes (`hideWithParent`): they keep their folder, and come back with it.
    private mutating func deleteFolder() -> BenchEvent {
        let folder = folders.random(&rng)
        Self.move(folder, from: &folders, to: &deletedFolders)
        return event(folder, NotebookModel.folder.events.deleted, NotebookEventData.empty)
    }

    /// Its name is still free: every name the generator gives is new.
    private mutating func restoreFolder() -> BenchEvent {
        let folder = deletedFolders.random(&rng)
        Self.move(folder, from: &deletedFolders, to: &folders)
        return event(folder, NotebookModel.folder.events.restored, NotebookEventData.empty)
    }

    private mutating func createLabel() -> BenchEvent {
        let label = NamedEntity(id: stamps.nextUUID(&rng), number: nextEntity(), in: NotebookModel.label)
        labels.insert(label)
        return event(label, NotebookModel.label.events.created, NotebookEventData.named(labelName()))
    }

    private mutating func renameLabel() -> BenchEvent {
        event(labels.random(&rng), NotebookModel.label.events.updated, NotebookEventData.named(labelName()))
    }

    /// Notes keep it as a member; it is not shown among their labels until restored.
    private mutating func deleteLabel() -> BenchEvent {
        let label = labels.random(&rng)
        Self.move(label, from: &labels, to: &deletedLabels)
        return event(label, NotebookModel.label.events.deleted, NotebookEventData.empty)
    }

    private mutating func restoreLabel() -> BenchEvent {
        let label = deletedLabels.random(&rng)
        Self.move(label, from: &deletedLabels, to: &labels)
        return event(label, NotebookModel.label.events.restored, NotebookEventData.empty)
    }

    private static func move(_ entity: NamedEntity, from: inout EntityPool<NamedEntity>, to: inout EntityPool<NamedEntity>) {
        from.remove(entity)
        entity.isDeleted.toggle()
        to.insert(entity)
    }

    // MARK: - Notes

    private mutating func createNote() -> BenchEvent {
        let note = NoteEntity(id: stamps.nextUUID(&rng), number: nextEntity(), in: NotebookModel.note)
        notes.insert(note)
        note.created = creationOrder.append(note)
        note.folder = rng.chance(0.70) ? folders.random(&rng) : nil
        let body = rng.chance(0.60) ? NotebookTexts.sentence(20 + rng.below(381), &rng) : nil
        let cost = rng.chance(0.40) ? randomCost() : nil
        return event(note, NotebookModel.note.events.created,
                     NotebookEventData.noteCreated(body: body, cost: cost, day: randomDay(), folder: note.folder?.id))
    }

    /// One field changed: the body (rewritten, or cleared), the day, the cost (set, or
    /// cleared), or the folder (another shown one, or none).
    private mutating func updateNote() -> BenchEvent {
        let note = pickNote()
        let roll = rng.unit()
        let data: Data
        if roll < 0.50 {
            data = NotebookEventData.noteUpdated("body", to: rng.chance(0.9) ? .text(NotebookTexts.sentence(20 + rng.below(381), &rng)) : nil)
        } else if roll < 0.70 {
            data = NotebookEventData.noteUpdated("day", to: .text(randomDay()))
        } else if roll < 0.85 {
            data = NotebookEventData.noteUpdated("cost", to: rng.chance(0.8) ? .text(randomCost()) : nil)
        } else {
            note.folder = rng.chance(0.8) ? folders.random(&rng) : nil
            data = NotebookEventData.noteUpdated("folderId", to: note.folder.map { ChronicleModel.FieldValue.text($0.id.uuidString.lowercased()) })
        }
        return event(note, NotebookModel.note.events.updated, data)
    }

    private mutating func togglePin() -> BenchEvent {
        let note = pickNote()
        note.isPinned.toggle()
        return event(note, note.isPinned ? "NotePinned" : "NoteUnpinned", NotebookEventData.empty)
    }

    /// A shown label added (seven times in ten, or when the note has none shown to take
    /// away) or one of its shown labels removed; nil when neither can be.
    private mutating func changeLabels() -> BenchEvent? {
        let note = pickNote()
        let removable = note.labels.filter { !$0.isDeleted }
        if removable.isEmpty || rng.chance(0.7) {
            for _ in 0..<3 {
                let label = labels.random(&rng)
                guard !note.labels.contains(where: { $0 === label }) else { continue }
                note.labels.append(label)
                return event(note, "NoteLabeled", NotebookEventData.label(label.id))
            }
        }
        guard !removable.isEmpty else { return nil }
        let label = removable[rng.below(removable.count)]
        note.labels.removeAll { $0 === label }
        return event(note, "NoteUnlabeled", NotebookEventData.label(label.id))
    }

    private mutating func deleteNote() -> BenchEvent {
        let note = pickNote()
        notes.remove(note)
        deletedNotes.insert(note)
        creationOrder.remove(at: note.created)
        return event(note, NotebookModel.note.events.deleted, NotebookEventData.empty)
    }

    /// A deleted note whose folder is shown (or that has none); nil when the one drawn has not.
    private mutating func restoreNote() -> BenchEvent? {
        guard !deletedNotes.isEmpty else { return nil }
        let note = deletedNotes.random(&rng)
        if let folder = note.folder, folder.isDeleted { return nil }
        deletedNotes.remove(note)
        notes.insert(note)
        creationOrder.restore(note, at: note.created)
        return event(note, NotebookModel.note.events.restored, NotebookEventData.empty)
    }

    /// A live note: a recent one (most of the time) or any one.
    private mutating func pickNote() -> NoteEntity {
        creationOrder.recent(&rng, share: recencyShare, mean: recencyMean) ?? notes.random(&rng)
    }

    // MARK: - Building blocks

    private mutating func event(_ entity: StreamEntity, _ type: String, _ data: Data) -> BenchEvent {
        entity.version += 1
        let timestamp = stamps.tick(&rng)
        return BenchEvent(id: stamps.nextUUID(&rng), stream: entity.stream, version: entity.version, type: type,
                          timestampMilliseconds: timestamp, data: data, entity: entity.number)
    }

    private mutating func nextEntity() -> UInt32 {
        entityCount += 1
        return entityCount
    }

    /// A name no folder had before: a word and a serial number.
    private mutating func folderName() -> String {
        nameSerial += 1
        return "\(NotebookTexts.folderNames[rng.below(NotebookTexts.folderNames.count)]) \(nameSerial)"
    }

    private mutating func labelName() -> String {
        nameSerial += 1
        return "\(NotebookTexts.labelNames[rng.below(NotebookTexts.labelNames.count)])-\(nameSerial)"
    }

    private mutating func randomDay() -> String { firstDay.adding(days: rng.below(365)).description }

    /// 0.50 to 200.00, two decimals.
    private mutating func randomCost() -> String {
        let cents = 50 + rng.below(19_951)
        return "\(cents / 100)." + (cents % 100 < 10 ? "0" : "") + "\(cents % 100)"
    }
}

/// An entity of the generated history: its stream, the version its next event gets, its
/// number (concurrent writers split on it), its place in the generator's pool.
class StreamEntity: Pooled {
    let id: UUID
    let stream: String
    let number: UInt32
    var version: UInt64 = 0
    var slot = 0
    var isDeleted = false

    init(id: UUID, number: UInt32, in entity: ChronicleModel.Entity) {
        self.id = id
        self.number = number
        stream = entity.stream(of: id)
    }
}

/// A folder or a label.
final class NamedEntity: StreamEntity {}

/// A note: what the generator must know to write only what the decider would.
final class NoteEntity: StreamEntity {
    /// Its place in the generator's creation order.
    var created = 0
    var isPinned = false
    var folder: NamedEntity?
    /// Its labels as stored (a deleted label stays a member, not shown).
    var labels: [NamedEntity] = []
}
