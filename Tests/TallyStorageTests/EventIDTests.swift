import Foundation
@testable import TallyStorage
import Testing

@Suite struct EventIDTests {
    /// An event's id is a lowercase version-4 UUID, as `UUID().uuidString.lowercased()` writes one.
    @Test func eventIDsAreLowercaseVersion4UUIDs() throws {
        let ids = (0..<2000).map { _ in EventOutbox.randomID() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let uuid = try #require(UUID(uuidString: id), "\(id)")
            #expect(uuid.uuidString.lowercased() == id)
            #expect(uuid.uuid.6 >> 4 == 4, "version 4: \(id)")
            #expect(uuid.uuid.8 >> 6 == 0b10, "the RFC 4122 variant: \(id)")
        }
        // Every hex digit appears in every position that is not fixed: nothing is stuck.
        for position in Array(0..<36) where ![8, 13, 14, 18, 23].contains(position) {
            let digits = Set(ids.map { Array($0.utf8)[position] })
            #expect(digits.count == ([19].contains(position) ? 4 : 16), "position \(position): \(digits.count) digits")
        }
    }
}
