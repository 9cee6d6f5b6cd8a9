import TallyProtocol

/// One element of an array argument, with the path and name its errors use (`args.items[2]`,
/// `items[2]`), so every list is read and reported on the same way.
struct ArgumentElement {
    let value: JSONValue
    let field: String
    let name: String

    static func list(_ values: [JSONValue], field: String, name: String) -> [ArgumentElement] {
        values.enumerated().map { ArgumentElement(value: $1, field: "\(field)[\($0)]", name: "\(name)[\($0)]") }
    }
}

extension Arguments {
    /// The required array `key`, element by element.
    func elements(_ key: String, example: String) throws(TallyError) -> [ArgumentElement] {
        ArgumentElement.list(try array(key, example: example), field: field(key), name: key)
    }

    func optionalElements(_ key: String) throws(TallyError) -> [ArgumentElement]? {
        try optionalArray(key).map { ArgumentElement.list($0, field: field(key), name: key) }
    }
}

extension [ArgumentElement] {
    /// Distinct positions in a list of `count` entries, such as the people who shared an item or
    /// the shares that are locked; `noun` names that list in messages.
    func indexes(into count: Int, of noun: String) throws(TallyError) -> [Int] {
        var indexes: [Int] = []
        for element in self {
            guard case .integer(let index) = element.value, (0..<Int64(count)).contains(index) else {
                throw .invalidArgument(
                    "\(element.name) must be an index into \(noun), a whole number from 0 to \(count - 1)", field: element.field)
            }
            guard !indexes.contains(Int(index)) else {
                throw .invalidArgument("\(element.name) repeats \(index); each may be listed once", field: element.field)
            }
            indexes.append(Int(index))
        }
        return indexes
    }
}
