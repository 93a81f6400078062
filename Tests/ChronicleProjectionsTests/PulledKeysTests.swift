import ChronicleLog
import ChronicleProjections
import ChronicleSchema
import ChronicleTestSupport
import Foundation
import Testing

/// The keys pulled events carry, worked out from the events alone: a child that comes under a
/// parent touches the parent's children key; the rest of a pull touches nothing.
struct PulledKeysTests {
    static func pulled(_ type: String, _ stream: String, _ data: String, at position: UInt64) -> RecordedEvent {
        RecordedEvent(position: position, id: UUID(), stream: stream, version: 1, type: type,
                      timestampMilliseconds: 1_800_000_000_000, origin: "another-device", data: Data(data.utf8))
    }

    @Test func aChildCreatedOrMovedUnderAParentTouchesItsChildrenKey() {
        let reader = ChronicleModel.EventReader(NotebookModel.model)
        let (folder, other, note) = (NotebookModel.text(1), NotebookModel.text(2), NotebookModel.text(3))
        let events = [
            Self.pulled("NoteCreated", "note-\(note)", #"{"day":"2026-03-01","folderId":"\#(folder)"}"#, at: 1),
            Self.pulled("NotePinned", "note-\(note)", "{}", at: 2),
            Self.pulled("NoteUpdated", "note-\(note)", #"{"body":"b"}"#, at: 3),
            Self.pulled("NoteUpdated", "note-\(note)", #"{"folderId":"\#(other)"}"#, at: 4),
            Self.pulled("NoteCreated", "note-\(NotebookModel.text(4))", #"{"day":"2026-03-01","folderId":"\#(folder)"}"#, at: 5),
        ]
        #expect(ModelStates.parentTouches(pulled: events, reader: reader)
                == [.touch("folder-\(folder)/notes"), .touch("folder-\(other)/notes")])
        #expect(ModelStates.parentTouches(pulled: Array(events[1...2]), reader: reader).isEmpty)
    }
}
