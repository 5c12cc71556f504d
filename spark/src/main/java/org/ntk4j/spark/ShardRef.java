package org.ntk4j.spark;

import java.io.Serializable;
import org.ntk4j.shard.TileRange;

/** A shard of the plan as a task receives it (TileRange itself is not Serializable). */
record ShardRef(String kernel, int rowStart, int rowEnd, int colStart, int colEnd) implements Serializable {
    static ShardRef of(TileRange r) {
        return new ShardRef(r.kernel(), r.rowStart(), r.rowEnd(), r.colStart(), r.colEnd());
    }

    TileRange range() {
        return new TileRange(kernel, rowStart, rowEnd, colStart, colEnd);
    }

    String name() {
        return range().name();
    }
}
