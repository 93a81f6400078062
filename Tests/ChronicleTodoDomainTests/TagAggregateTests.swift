import Foundation
import Testing
import ChronicleTodoDomain

struct TagAggregateTests {
    let id = uuid(30)
    let other = uuid(31)

    @Test func startsUnknown() {
        let aggregate = TagAggregate()
        #expect(aggregate.tag == nil)
        #expect(!aggregate.isDeleted)
        #expect(!aggregate.isLive)
    }

    @Test func foldsCreateAndPartialUpdates() {
        var aggregate = tagAggregate(.tagCreated(id: id, name: "Work", color: "#1a2b3c"))
        #expect(aggregate.tag == Tag(id: id, name: "Work", color: "#1a2b3c"))
        #expect(aggregate.isLive)
        aggregate.apply(.tagUpdated(id: id, name: nil, color: "#ffffff"))
        #expect(aggregate.tag == Tag(id: id, name: "Work", color: "#ffffff"))
        aggregate.apply(.tagUpdated(id: id, name: "Job", color: nil))
        #expect(aggregate.tag == Tag(id: id, name: "Job", color: "#ffffff"))
    }

    @Test func deletionKeepsTheLastStateAndIsFinal() {
        var aggregate = tagAggregate(.tagCreated(id: id, name: "Work", color: "#1a2b3c"), .tagDeleted(id: id))
        #expect(aggregate.isDeleted)
        #expect(!aggregate.isLive)
        #expect(aggregate.tag == Tag(id: id, name: "Work", color: "#1a2b3c"))
        aggregate.apply(.tagUpdated(id: id, name: "Zombie", color: nil))
        aggregate.apply(.tagCreated(id: id, name: "Again", color: "#000000"))
        #expect(aggregate.tag?.name == "Work")
        #expect(aggregate.isDeleted)
    }

    @Test func ignoresOtherTagsUserAndTodoEventsAndEventsBeforeCreation() {
        var aggregate = TagAggregate()
        aggregate.apply(.tagUpdated(id: id, name: "Early", color: nil))
        aggregate.apply(.tagDeleted(id: id))
        #expect(aggregate == TagAggregate())

        aggregate.apply(.tagCreated(id: id, name: "Work", color: "#1a2b3c"))
        let created = aggregate
        aggregate.apply(.tagCreated(id: other, name: "Home", color: "#000000"))
        aggregate.apply(.tagUpdated(id: other, name: "Home", color: "#111111"))
        aggregate.apply(.tagDeleted(id: other))
        aggregate.apply(.todoTagged(id: id, tagId: id))
        aggregate.apply(.todoUntagged(id: id, tagId: id))
        aggregate.apply(.todoDeleted(id: id))
        aggregate.apply(.userDeleted(id: id))
        #expect(aggregate == created)
    }
}
