import Foundation
import Synchronization
import Testing

import TallyProtocol

@Suite struct JSONValueTests {
    private func nested(objects depth: Int) -> Data {
        Data((String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
    }

    private func nested(arrays depth: Int) -> Data {
        Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
    }

    @Test func nestingUpToTheBoundDecodes() throws {
        let innermost = (1..<JSONValue.maximumDepth).reduce(JSONValue.array([])) { inner, _ in .array([inner]) }
        #expect(try JSONDecoder().decode(JSONValue.self, from: nested(arrays: JSONValue.maximumDepth)) == innermost)
        #expect(try JSONDecoder().decode(JSONValue.self, from: nested(objects: JSONValue.maximumDepth - 1))["a"] != nil)
    }

    @Test func deeperNestingIsRefusedWithItsReason() {
        for document in [nested(objects: JSONValue.maximumDepth + 1), nested(arrays: JSONValue.maximumDepth + 1)] {
            #expect(throws: TallyError.invalidArgument("JSON nested more than 64 levels deep is refused")) {
                try JSONDecoder().decode(JSONValue.self, from: document)
            }
        }
    }

    /// An event nesting objects 400 deep (2 KB) used to overflow the 1 MiB stack of the notifier's
    /// inlet thread (`DedicatedThread`) and crash the notifier; it is refused now, on such a thread.
    @Test func deepNestingIsRefusedOnASmallStack() {
        final class Outcome: Sendable { let text = Mutex<String?>(nil) }
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        let document = nested(objects: 400)
        let thread = Thread {
            do {
                _ = try JSONDecoder().decode(JSONValue.self, from: document)
                outcome.text.withLock { $0 = "decoded" }
            } catch {
                outcome.text.withLock { $0 = "\(error)" }
            }
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        finished.wait()
        #expect(outcome.text.withLock { $0 } == "invalid_argument: JSON nested more than 64 levels deep is refused")
    }
}
