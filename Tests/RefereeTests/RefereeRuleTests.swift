import Foundation
import Testing
import ChronicleReferee

/// One test per rule of docs/PROTOCOL.md ("Merging") and docs/CLI.md, each a server order
/// written by hand as wire JSON.
@Suite struct RefereeRuleTests {
    /// Wire events in server order: (stream, type, data, schemaVersion).
    private func fold(_ events: [(String, String, String, Int?)]) throws -> RefereeState {
        let objects = events.enumerated().map { index, event in
            let (stream, type, data, schema) = event
            return """
                {"position":\(index + 1),"id":"0193a1b2-0000-7000-8000-\(String(format: "%012d", index + 1))",\
                "stream":"\(stream)","version":1,"type":"\(type)","timestamp":"2026-11-22T02:30:00.000Z",\
                "origin":"device-a","data":\(data)\(schema.map { ",\"schemaVersion\":\($0)" } ?? "")}
                """
        }
        return RefereeState.fold(try RefereeEvent.parseArray(json: Data("[\(objects.joined(separator: ","))]".utf8)))
    }

    private let ada = ("user-u1", "UserCreated", #"{"age":36,"name":"Ada"}"#, Int?.none)
    private let milk = ("todo-t1", "TodoCreated", #"{"deadline":"2026-12-01","title":"Milk","userId":"u1"}"#, Int?.none)
    private let work = ("tag-g1", "TagCreated", ##"{"color":"#AABBCC","name":"work"}"##, Int?.some(2))

    @Test func parsesAWireEventAndAPullPage() throws {
        let text = #"""
            {"position":42,"id":"0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b","stream":"tag-g1","version":3,
             "type":"TagUpdated","timestamp":"2026-11-22T02:30:00.123Z","origin":"dev","data":{"name":"x","n":null},
             "schemaVersion":2}
            """#
        let event = try RefereeEvent.parse(json: Data(text.utf8))
        #expect(event.position == 42 && event.version == 3 && event.schemaVersion == 2)
        #expect(event.data == ["name": .string("x"), "n": .null])
        let page = try RefereeEvent.parseArray(json: Data(#"{"events":[\#(text)],"lastPosition":42}"#.utf8))
        #expect(page == [event])
        #expect(throws: RefereeParseError.missing("origin")) {
            try RefereeEvent.parse(json: Data(#"{"position":1,"id":"a","stream":"s","version":1,"type":"T","timestamp":"t","data":{}}"#.utf8))
        }
    }

    @Test func perFieldTheLaterWriteWins() throws {
        let state = try fold([
            ada, milk, work,
            ("user-u1", "UserUpdated", #"{"age":37}"#, nil),
            ("todo-t1", "TodoUpdated", #"{"memo":"2 l","title":"Oat milk"}"#, nil),
            ("todo-t1", "TodoUpdated", #"{"deadline":"2026-12-02"}"#, nil),
            ("tag-g1", "TagUpdated", ##"{"color":"#00FF00"}"##, 2),
        ])
        #expect(state.users["u1"] == RefereeUser(id: "u1", name: "Ada", age: 37))
        #expect(state.todos["t1"] == RefereeTodo(
            id: "t1", title: "Oat milk", deadline: "2026-12-02", userId: "u1", memo: "2 l"))
        #expect(state.tags["g1"] == RefereeTag(id: "g1", name: "work", color: "#00ff00"))
    }

    @Test func anEmptyMemoClearsIt() throws {
        let state = try fold([
            ("todo-t2", "TodoCreated", #"{"deadline":"2026-12-01","memo":"soon","title":"Bread"}"#, nil),
            ("todo-t2", "TodoUpdated", #"{"memo":""}"#, nil),
        ])
        #expect(state.todos["t2"]?.memo == nil)
    }

    @Test func theLaterCompletionOrReopeningWins() throws {
        let done = try fold([ada, milk, ("todo-t1", "TodoReopened", "{}", nil), ("todo-t1", "TodoCompleted", "{}", nil),
                             ("todo-t1", "TodoCompleted", "{}", nil)])
        #expect(done.todos["t1"]?.isCompleted == true)
        let open = try fold([ada, milk, ("todo-t1", "TodoCompleted", "{}", nil), ("todo-t1", "TodoReopened", "{}", nil)])
        #expect(open.todos["t1"]?.isCompleted == false)
    }

    @Test func deletesWinUntilARestorationThatBringsTheEntityBackAsItWas() throws {
        let deleted = [
            ada, milk, work,
            ("todo-t1", "TodoCompleted", "{}", nil), ("todo-t1", "TodoTagged", #"{"tagId":"g1"}"#, nil),
            ("todo-t1", "TodoDeleted", "{}", nil),
            ("todo-t1", "TodoUpdated", #"{"title":"Lost"}"#, nil), ("todo-t1", "TodoReopened", "{}", nil),
            ("todo-t1", "TodoUntagged", #"{"tagId":"g1"}"#, nil),
            ("user-u1", "UserDeleted", "{}", nil), ("user-u1", "UserUpdated", #"{"name":"Lost"}"#, nil),
            ("tag-g1", "TagDeleted", "{}", nil), ("tag-g1", "TagUpdated", #"{"name":"lost"}"#, 2),
        ]
        let gone = try fold(deleted)
        #expect(gone.users.isEmpty && gone.todos.isEmpty && gone.tags.isEmpty && gone.stats.isEmpty)

        let back = try fold(deleted + [
            ("tag-g1", "TagRestored", "{}", 2), ("user-u1", "UserRestored", "{}", nil),
            ("todo-t1", "TodoRestored", "{}", nil),
        ])
        #expect(back.users["u1"]?.name == "Ada" && back.tags["g1"]?.name == "work")
        #expect(back.todos["t1"] == RefereeTodo(
            id: "t1", title: "Milk", deadline: "2026-12-01", userId: "u1", isCompleted: true, tags: ["g1"]))

        let later = try fold(deleted + [("todo-t1", "TodoRestored", "{}", nil), ("user-u1", "UserRestored", "{}", nil),
                                        ("todo-t1", "TodoUpdated", #"{"title":"Milk 2"}"#, nil)])
        #expect(later.todos["t1"]?.title == "Milk 2" && later.todos["t1"]?.tags == [])
    }

    @Test func aTodoOfADeletedUserIsNotLiveWhicheverCameFirst() throws {
        let offline = ("todo-t3", "TodoCreated", #"{"deadline":"2026-12-01","title":"Eggs","userId":"u1"}"#, Int?.none)
        let deletion = ("user-u1", "UserDeleted", "{}", Int?.none)
        let before = try fold([ada, offline, deletion])
        let after = try fold([ada, deletion, offline])
        #expect(before.todos.isEmpty && after.todos.isEmpty && after.stats.isEmpty)
        let restored = try fold([ada, deletion, offline, ("user-u1", "UserRestored", "{}", nil)])
        #expect(restored.todos["t3"]?.title == "Eggs")
        #expect(restored.stats["2026-12-01"] == RefereeStat(date: "2026-12-01", total: 1, completed: 0))
    }

    @Test func perTagTheLaterTaggingWinsAndOnlyLiveTagsShow() throws {
        let other = ("tag-g2", "TagCreated", ##"{"color":"#000000","name":"home"}"##, Int?.some(2))
        let live = try fold([ada, milk, work, other,
            ("todo-t1", "TodoTagged", #"{"tagId":"g2"}"#, nil), ("todo-t1", "TodoTagged", #"{"tagId":"g1"}"#, nil),
            ("todo-t1", "TodoUntagged", #"{"tagId":"g2"}"#, nil), ("todo-t1", "TodoUntagged", #"{"tagId":"g1"}"#, nil),
            ("todo-t1", "TodoTagged", #"{"tagId":"g1"}"#, nil),
        ])
        #expect(live.todos["t1"]?.tags == ["g1"])
        let deleted = try fold([ada, milk, work, ("todo-t1", "TodoTagged", #"{"tagId":"g1"}"#, nil),
                                ("tag-g1", "TagDeleted", "{}", 2)])
        #expect(deleted.todos["t1"]?.tags == [])
        let restored = try fold([ada, milk, work, ("todo-t1", "TodoTagged", #"{"tagId":"g1"}"#, nil),
                                 ("tag-g1", "TagDeleted", "{}", 2), ("tag-g1", "TagRestored", "{}", 2)])
        #expect(restored.todos["t1"]?.tags == ["g1"])
    }

    @Test func tagNamesEqualUpToFullCaseFoldingAreNumberedInTheOrderOfTheirNames() throws {
        #expect(RefereeCaseFolding.equal("Straße", "STRASSE") && RefereeCaseFolding.equal("ΣΑΣ", "σας"))
        #expect(RefereeCaseFolding.equal("ẞ", "ss") && !RefereeCaseFolding.equal("ı", "i"))
        let state = try fold([
            ("tag-a", "TagCreated", ##"{"color":"#111111","name":"STRASSE"}"##, 2),
            ("tag-b", "TagCreated", ##"{"color":"#222222","name":"Straße"}"##, 2),
            ("tag-c", "TagCreated", ##"{"color":"#333333","name":"σας"}"##, 2),
            ("tag-d", "TagCreated", ##"{"color":"#444444","name":"ΣΑΣ"}"##, 2),
            ("tag-e", "TagCreated", ##"{"color":"#555555","name":"strasse"}"##, 2),
            ("tag-f", "TagCreated", ##"{"color":"#666666","name":"Straße (2)"}"##, 2),
        ])
        #expect(state.tags.mapValues(\.name) == [
            "a": "STRASSE", "b": "Straße (2)", "c": "σας", "d": "ΣΑΣ (2)", "e": "strasse (3)", "f": "Straße (2)",
        ])
        #expect(state.tagRenamed == [
            RefereeTagRenamed(stream: "tag-b", shownName: "Straße (2)"),
            RefereeTagRenamed(stream: "tag-d", shownName: "ΣΑΣ (2)"),
            RefereeTagRenamed(stream: "tag-e", shownName: "strasse (3)"),
        ])
    }

    @Test func aDeletionFreesANameAndARenameMovesItToTheEndOfTheOrder() throws {
        let two = [
            ("tag-a", "TagCreated", ##"{"color":"#111111","name":"Work"}"##, Int?.some(2)),
            ("tag-b", "TagCreated", ##"{"color":"#222222","name":"work"}"##, Int?.some(2)),
        ]
        #expect(try fold(two + [("tag-a", "TagDeleted", "{}", 2)]).tags["b"]?.name == "work")
        let renamed = try fold(two + [("tag-a", "TagUpdated", #"{"name":"WORK"}"#, 2)])
        #expect(renamed.tags["a"]?.name == "WORK (2)" && renamed.tags["b"]?.name == "work")
        let recolored = try fold(two + [("tag-a", "TagUpdated", ##"{"color":"#999999"}"##, 2)])
        #expect(recolored.tags["a"]?.name == "Work" && recolored.tags["b"]?.name == "work (2)")
        let away = try fold(two + [("tag-a", "TagUpdated", #"{"name":"play"}"#, 2)])
        #expect(away.tags["b"]?.name == "work" && away.tagRenamed.isEmpty)
    }

    @Test func statsCountLiveTodosPerDeadlineDay() throws {
        let state = try fold([
            milk, ada,
            ("todo-t2", "TodoCreated", #"{"deadline":"2026-12-01","title":"Bread"}"#, nil),
            ("todo-t3", "TodoCreated", #"{"deadline":"2026-12-03","title":"Jam"}"#, nil),
            ("todo-t2", "TodoCompleted", "{}", nil), ("todo-t1", "TodoCompleted", "{}", nil),
            ("todo-t3", "TodoUpdated", #"{"deadline":"2026-12-05"}"#, nil), ("todo-t1", "TodoDeleted", "{}", nil),
        ])
        #expect(state.stats == [
            "2026-12-01": RefereeStat(date: "2026-12-01", total: 1, completed: 1),
            "2026-12-05": RefereeStat(date: "2026-12-05", total: 1, completed: 0),
        ])
    }

    @Test func unknownTypesAndNewerShapesAreSkippedAndOldTagNamesComposed() throws {
        let state = try fold([
            ada,
            ("user-u1", "UserRenamedInTheFuture", #"{"name":"Bob"}"#, nil),
            ("user-u1", "UserUpdated", #"{"name":"Bob"}"#, 2),
            ("tag-g3", "TagUpdated", #"{"name":"never created"}"#, 2),
            ("tag-g4", "TagCreated", ##"{"color":"#ABCDEF","name":"Cafe\u0301"}"##, nil),
            ("tag-g5", "TagCreated", ##"{"color":"#ABCDEF","name":"café"}"##, 3),
        ])
        #expect(state.users["u1"]?.name == "Ada")
        #expect(state.tags == ["g4": RefereeTag(id: "g4", name: "Caf\u{e9}", color: "#abcdef")])
    }

    @Test func jsonListsFollowTheCLIShapesAndSortOrders() throws {
        let state = try fold([
            ("user-u2", "UserCreated", #"{"age":1,"name":"Bea"}"#, nil), ada,
            ("todo-t2", "TodoCreated", #"{"deadline":"2026-11-30","title":"Say \"hi\""}"#, nil), milk,
            ("tag-b", "TagCreated", ##"{"color":"#222222","name":"Work"}"##, 2),
            ("tag-a", "TagCreated", ##"{"color":"#111111","name":"home"}"##, 2),
            ("todo-t1", "TodoTagged", #"{"tagId":"b"}"#, nil),
        ])
        let lists = state.jsonLists()
        #expect(lists.users == [#"{"id":"u1","name":"Ada","age":36}"#, #"{"id":"u2","name":"Bea","age":1}"#])
        #expect(lists.todos == [
            #"{"id":"t2","title":"Say \"hi\"","deadline":"2026-11-30","userId":null,"memo":null,"isCompleted":false,"tags":[]}"#,
            #"{"id":"t1","title":"Milk","deadline":"2026-12-01","userId":"u1","memo":null,"isCompleted":false,"tags":["b"]}"#,
        ])
        #expect(lists.tags == [##"{"id":"a","name":"home","color":"#111111"}"##, ##"{"id":"b","name":"Work","color":"#222222"}"##])
        #expect(lists.stats == [#"{"date":"2026-11-30","total":1,"completed":0}"#,
                                #"{"date":"2026-12-01","total":1,"completed":0}"#])
    }
}
