import Foundation

/// How a fuzz input stands for a multi-frame ZeroMQ message: each frame is one length byte
/// followed by that many bytes, and a length byte of 255 means "the rest of the input is the last
/// frame". An input that ends early ends its last frame early. Every message whose frames but the
/// last are shorter than 255 bytes has an encoding, and every input is some message, so the
/// fuzzer explores frame counts and frame contents alike. (`Fuzz/seed.py` writes seeds this way.)
public enum FuzzFrames {
    public static let restOfInput: UInt8 = 255

    public static func split(_ input: Data) -> [Data] {
        var frames: [Data] = []
        var position = input.startIndex
        while position < input.endIndex {
            let length = input[position]
            position += 1
            if length == restOfInput {
                frames.append(Data(input[position...]))
                return frames
            }
            let end = min(position + Int(length), input.endIndex)
            frames.append(Data(input[position..<end]))
            position = end
        }
        return frames
    }
}

/// How a fuzz input stands for several messages in a row, such as the events one subscriber
/// receives: one message per line (the messages are compact JSON, which has no raw line breaks).
public enum FuzzLines {
    public static func split(_ input: Data) -> [Data] {
        input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map { Data($0) }
    }
}
