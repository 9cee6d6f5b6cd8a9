import Foundation
import TallyProtocol
import Testing

/// Templates and shopping lists: create (empty, from a template, currency from the locale),
/// get, page through, rename, delete, and their errors.
@Suite struct ListTests {
    @Test func createsTemplatesAndShoppingListsWithTimestamps() throws {
        let harness = try ShoppingHarness()
        let template = try harness.call(
            "shopping.create_list", ["kind": "template", "name": "  Weekly ", "currency": "eur"])
        #expect(template["kind"] == "template")
        #expect(template["name"] == "Weekly")
        #expect(template["currency"] == "EUR")
        #expect(template["total"] == "0.00")
        #expect(template["items"] == [])
        #expect(template["hidden_items"] == 0)
        #expect(template["created_at"] == template["updated_at"])
        #expect(template["created_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(template["from_template"] == nil)
        #expect(template["carried_over"] == nil)
        #expect(try harness.types() == ["shopping.list_created"])
        let event = try #require(try harness.events().first)
        #expect(event.subject == "ann/\(template["id"]?.intValue ?? 0)")
        #expect(event.source == "tally/shopping")
        #expect(event.data == ["owner": "ann", "list_id": template["id"]!, "kind": "template", "name": "Weekly", "currency": "EUR", "item_count": 0])
    }

    @Test func theCurrencyDefaultsToTheLocalesOrTheTemplates() throws {
        let harness = try ShoppingHarness()
        let yen = try harness.call("shopping.create_list", ["kind": "template", "name": "Monthly"], locale: "ja_JP")
        #expect(yen["currency"] == "JPY")
        let copy = try harness.call("shopping.create_list", ["kind": "shopping", "name": "May", "from_template": yen["id"]!])
        #expect(copy["currency"] == "JPY", "a copy keeps its template's currency without a locale")
        #expect(copy["from_template"] == yen["id"])
        let error = harness.error("shopping.create_list", ["kind": "shopping", "name": "June"])
        #expect(error?.field == "args.currency")
    }

    @Test func aListFromATemplateCopiesItsItemsUnbought() throws {
        let harness = try ShoppingHarness()
        let weekly = try harness.list("Weekly", kind: "template")
        try harness.item(weekly, "Milk", planned: 2, unit: "l")
        try harness.item(weekly, "Bread")
        let list = try harness.call("shopping.create_list", ["kind": "shopping", "name": "Week 12", "from_template": .integer(weekly)])
        let items = try #require(list["items"]?.arrayValue)
        #expect(items.map { $0["name"] } == ["Milk", "Bread"])
        #expect(items.map { $0["planned_quantity"] } == [2, 1])
        #expect(items.map { $0["unit"] } == ["l", nil])
        #expect(items.allSatisfy { $0["purchased"] == false && $0["purchased_quantity"] == 0 && $0["unit_price"] == nil })
        #expect(list["item_count"] == 2)
        // The template is untouched, and editing the copy leaves it so.
        try harness.call("shopping.remove_item", ["list_id": list["id"]!, "item_id": items[0]["id"]!])
        #expect(try harness.get(weekly).names == ["Milk", "Bread"])
    }

    @Test func createErrors() throws {
        let harness = try ShoppingHarness()
        let shopping = try harness.list("Saturday")
        let cases: [(JSONValue, String, ErrorCode)] = [
            (["owner": "ann", "kind": "shopping", "name": "A", "currency": "EUR"], "args.owner", .invalidArgument),
            (["name": "A", "currency": "EUR"], "args.kind", .invalidArgument),
            (["kind": "weekly", "name": "A", "currency": "EUR"], "args.kind", .invalidArgument),
            (["kind": "shopping", "name": "  ", "currency": "EUR"], "args.name", .invalidArgument),
            (["kind": "shopping", "name": .string(String(repeating: "x", count: 51)), "currency": "EUR"], "args.name", .invalidArgument),
            (["kind": "shopping", "name": "A", "currency": "XYZ"], "args.currency", .invalidArgument),
            (["kind": "shopping", "name": "A", "from_template": 99], "args.from_template", .notFound),
            (["kind": "shopping", "name": "A", "from_template": .integer(shopping)], "args.from_template", .invalidArgument),
            (["kind": "shopping", "name": "A", "from_template": 0], "args.from_template", .invalidArgument),
            (["kind": "shopping", "name": "A", "currency": "EUR", "colour": "red"], "args.colour", .invalidArgument),
        ]
        let before = try harness.lastSequence()
        for (args, field, code) in cases {
            let error = harness.error("shopping.create_list", args)
            #expect(error?.field == field, "\(args)")
            #expect(error?.code == code, "\(args)")
        }
        #expect(try harness.lastSequence() == before, "a refused command records no event")
        // Another owner's template is not there.
        let template = try harness.list("Weekly", kind: "template", owner: "bo")
        #expect(harness.error("shopping.create_list", ["kind": "shopping", "name": "A", "from_template": .integer(template)])?.code == .notFound)
    }

    @Test func listsPagesByCreationAndFiltersByKind() throws {
        let harness = try ShoppingHarness()
        let weekly = try harness.list("Weekly", kind: "template")
        let first = try harness.list("Week 1")
        let second = try harness.list("Week 2")
        try harness.list("Other", owner: "bo")
        let milk = try harness.item(first, "Milk", planned: 3)
        try harness.buy(first, milk, price: "1.19")
        let page = try harness.call("shopping.lists", ["limit": 2])
        let lists = try #require(page["lists"]?.arrayValue)
        #expect(lists.map { $0["id"]?.intValue } == [weekly, first])
        #expect(lists[1]["total"] == "3.57")
        #expect(lists[1]["item_count"] == 1)
        #expect(lists[1]["purchased_count"] == 1)
        #expect(lists[1]["items"] == nil, "pages carry no items")
        let rest = try harness.call("shopping.lists", ["limit": 2, "cursor": page["next_cursor"]!])
        #expect(rest["lists"]?.arrayValue?.map { $0["id"]?.intValue } == [second])
        #expect(rest["next_cursor"] == nil)
        let templates = try harness.call("shopping.lists", ["kind": "template"])
        #expect(templates["lists"]?.arrayValue?.map { $0["name"] } == ["Weekly"])
        #expect(harness.error("shopping.lists", ["cursor": "nope"])?.field == "args.cursor")
        #expect(harness.error("shopping.lists", ["limit": 101])?.field == "args.limit")
    }

    @Test func renameAndDelete() throws {
        let harness = try ShoppingHarness()
        let id = try harness.list("Weekly", kind: "template")
        try harness.item(id, "Milk")
        let created = try harness.get(id)
        let start = try harness.lastSequence()
        Thread.sleep(forTimeInterval: 0.005)
        let renamed = try harness.call("shopping.rename_list", ["list_id": .integer(id), "name": "Every week"])
        #expect(renamed["name"] == "Every week")
        #expect(renamed["updated_at"] != created["updated_at"])
        #expect(renamed["created_at"] == created["created_at"])
        // The same name again changes nothing.
        try harness.call("shopping.rename_list", ["list_id": .integer(id), "name": "Every week"])
        #expect(try harness.types(after: start) == ["shopping.list_renamed"])
        #expect(try harness.events().last?.data["previous_name"] == "Weekly")
        #expect(harness.error("shopping.rename_list", ["list_id": .integer(id), "name": "X"], as: "bo")?.code == .notFound)
        #expect(harness.error("shopping.rename_list", ["list_id": .integer(id), "name": ""])?.field == "args.name")

        let deleted = try harness.call("shopping.delete_list", ["list_id": .integer(id)])
        #expect(deleted["name"] == "Every week")
        #expect(deleted["item_count"] == 1)
        #expect(try harness.count("SELECT COUNT(*) FROM shopping_item") == 0, "its items go with it")
        #expect(try harness.types(after: start) == ["shopping.list_renamed", "shopping.list_deleted"])
        let error = harness.error("shopping.get_list", ["list_id": .integer(id)])
        #expect(error == TallyError(.notFound, "you have no list \(id)", field: "args.list_id"))
        #expect(harness.error("shopping.delete_list", ["list_id": .integer(id)])?.code == .notFound)
    }
}
