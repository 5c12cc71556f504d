package org.ntk4j.probe;

import org.ntk4j.train.Schedule;

/** A {@link Probe} with a name that runs on a {@link Schedule}. */
public abstract class ScheduledProbe implements Probe {
    private final String name;
    private final Schedule schedule;

    protected ScheduledProbe(String name, Schedule schedule) {
        this.name = name;
        this.schedule = schedule;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean due(long step, boolean epochEnd) {
        return schedule.due(step, epochEnd);
    }
}
