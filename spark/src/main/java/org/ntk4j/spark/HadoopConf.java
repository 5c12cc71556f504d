package org.ntk4j.spark;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;

/** A Hadoop {@link Configuration} as bytes (it is Writable, not Serializable), to ship to executors. */
final class HadoopConf {
    private HadoopConf() {}

    static byte[] toBytes(Configuration c) {
        if (c == null) {
            return null;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(b)) {
            c.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.toByteArray();
    }

    static Configuration fromBytes(byte[] bytes) {
        Configuration c = new Configuration(false);
        if (bytes == null) {
            return new Configuration();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            c.readFields(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return c;
    }
}
