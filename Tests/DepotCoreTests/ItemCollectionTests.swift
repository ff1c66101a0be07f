import DepotCore
import Testing

@Suite("ItemCollection")
struct ItemCollectionTests {
    @Test("built from items that carry their ids, it keeps them in order and finds them by id")
    func fromItems() throws {
        let items = [Item(id: "b", json: Array(#"{"id":"b"}"#.utf8)), Item(id: "a", json: Array(#"{"id":"a"}"#.utf8))]
        let collection = try ItemCollection(items: items)
        #expect(collection.items == items)
        #expect(collection.item(id: "a") == items[1])
        #expect(collection.removing(id: "b").items == [items[1]])
    }

    @Test("built from items, a repeated id fails naming both positions")
    func repeatedID() {
        let item = Item(id: "7", json: Array(#"{"id":7}"#.utf8))
        #expect(throws: ItemCollectionError(.duplicateID(id: "7", index: 2, firstIndex: 0))) {
            try ItemCollection(items: [item, Item(id: "8", json: Array(#"{"id":8}"#.utf8)), item])
        }
    }
}
