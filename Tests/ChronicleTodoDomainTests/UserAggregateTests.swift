import Foundation
import Testing
import ChronicleTodoDomain

struct UserAggregateTests {
    let id = uuid(1)
    let other = uuid(2)

    @Test func startsUnknown() {
        let aggregate = UserAggregate()
        #expect(aggregate.user == nil)
        #expect(!aggregate.isDeleted)
        #expect(!aggregate.isLive)
    }

    @Test func foldsCreateAndPartialUpdates() {
        var aggregate = UserAggregate()
        aggregate.apply(.userCreated(id: id, name: "Ada", age: 36))
        #expect(aggregate.user == User(id: id, name: "Ada", age: 36))
        #expect(aggregate.isLive)
        aggregate.apply(.userUpdated(id: id, name: nil, age: 37))
        #expect(aggregate.user == User(id: id, name: "Ada", age: 37))
        aggregate.apply(.userUpdated(id: id, name: "Ada L.", age: nil))
        #expect(aggregate.user == User(id: id, name: "Ada L.", age: 37))
    }

    @Test func deletionKeepsTheLastStateAndIsFinal() {
        var aggregate = userAggregate(
            .userCreated(id: id, name: "Ada", age: 36),
            .userDeleted(id: id))
        #expect(aggregate.isDeleted)
        #expect(!aggregate.isLive)
        #expect(aggregate.user == User(id: id, name: "Ada", age: 36))
        aggregate.apply(.userUpdated(id: id, name: "Zombie", age: nil))
        aggregate.apply(.userCreated(id: id, name: "Again", age: 1))
        #expect(aggregate.user?.name == "Ada")
        #expect(aggregate.isDeleted)
    }

    @Test func ignoresOtherUsersTodoEventsAndEventsBeforeCreation() {
        var aggregate = UserAggregate()
        aggregate.apply(.userUpdated(id: id, name: "Early", age: nil))
        aggregate.apply(.userDeleted(id: id))
        #expect(aggregate == UserAggregate())

        aggregate.apply(.userCreated(id: id, name: "Ada", age: 36))
        let created = aggregate
        aggregate.apply(.userCreated(id: other, name: "Bob", age: 40))
        aggregate.apply(.userUpdated(id: other, name: "Bob", age: 41))
        aggregate.apply(.userDeleted(id: other))
        aggregate.apply(.todoCreated(id: id, title: "t", deadline: day("2026-03-01"), userId: id, memo: nil))
        aggregate.apply(.todoDeleted(id: id))
        #expect(aggregate == created)
    }
}
