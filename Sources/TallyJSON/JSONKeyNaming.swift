/// How a Swift name becomes a JSON key, in one place for writing and reading: words in
/// snake_case, an acronym one word. `listID` is `list_id`, `previousListID` is
/// `previous_list_id`, `p50Ms` is `p50_ms`, `URLPath` is `url_path`, and a name already in
/// snake_case (`minor_units`, `requestid`) stays as it is.
///
/// A word starts at an upper-case letter after a lower-case letter or a digit, and at the last
/// upper-case letter of a run that a lower-case letter follows; words are lower-cased and joined
/// with `_`. Only ASCII letters count: every Swift name Tally puts on the wire is ASCII.
///
/// Reading goes the same way (the Swift name is converted and looked up), never from the JSON
/// key back to a Swift name: `user_id` cannot tell `userId` from `userID`, and a key the decoder
/// does not look for is simply not read. The keys of a `[String: Value]` dictionary are data,
/// not names, and are never converted.
public enum JSONKeyNaming {
    /// `name` as a JSON key.
    public static func key(_ name: String) -> String {
        var name = name
        // Most names are one lower-case word: one pass over their bytes, and no copy.
        return name.withUTF8 { bytes in
            guard bytes.contains(where: isUpper) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
                var count = 0
                for index in 0..<bytes.count {
                    let byte = bytes[index]
                    guard isUpper(byte) else {
                        out[count] = byte
                        count += 1
                        continue
                    }
                    if index > 0 {
                        let previous = bytes[index - 1]
                        let nextIsLower = index + 1 < bytes.count && isLower(bytes[index + 1])
                        if isLower(previous) || isDigit(previous) || (isUpper(previous) && nextIsLower) {
                            out[count] = UInt8(ascii: "_")
                            count += 1
                        }
                    }
                    out[count] = byte | 0x20
                    count += 1
                }
                return count
            }
        } ?? name
    }

    /// The Swift name a key is written from, for the only place that must go from keys to names
    /// (`allKeys`, which enums with associated values decode by): `user_id` as `userId`. A name
    /// with an acronym (`userID`) is not found this way; such enums should not have one.
    static func camelCase(_ key: String) -> String {
        guard key.utf8.contains(UInt8(ascii: "_")) else { return key }
        var result = ""
        var upper = false
        for character in key {
            if character == "_" && !result.isEmpty {
                upper = true
            } else {
                result.append(upper ? Character(character.uppercased()) : character)
                upper = false
            }
        }
        return result
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
