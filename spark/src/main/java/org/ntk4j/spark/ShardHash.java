package org.ntk4j.spark;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 in lower-case hex, of bytes or of a stream (read to its end, not closed). */
final class ShardHash {
    private ShardHash() {}

    static String sha256(byte[] b) {
        MessageDigest md = digest();
        return hex(md.digest(b));
    }

    static String sha256(InputStream in) throws IOException {
        MessageDigest md = digest();
        byte[] buf = new byte[1 << 16];
        for (int k; (k = in.read(buf)) > 0; ) {
            md.update(buf, 0, k);
        }
        return hex(md.digest());
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] d) {
        StringBuilder s = new StringBuilder(d.length * 2);
        for (byte x : d) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }
}
