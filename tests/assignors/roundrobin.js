#!/usr/bin/env node
// A kgspec-assignor/1 assignor in JavaScript (docs/assignors.md): round robin.
// Consumer groups: each topic's partitions go to its subscribers (sorted by member id) in turn,
// continuing the turn from topic to topic (topics in sorted order).
// Streams groups: active tasks round robin over members, no standbys.
// A request whose assignor name is "fail" answers an error, to test that path.
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter((l) => l.trim());
const req = JSON.parse(lines[0]);
if (req.assignor === 'fail') {
  process.stdout.write(JSON.stringify({ error: 'asked to fail' }) + '\n');
  process.exit(0);
}
if (req.kind === 'consumer') {
  const members = req.members.map((m) => m.memberId).sort();
  const subs = new Map(req.members.map((m) => [m.memberId, new Set(m.subscribedTopicIds)]));
  const out = Object.fromEntries(req.members.map((m) => [m.memberId, {}]));
  let turn = 0;
  for (const topic of Object.keys(req.topics).sort()) {
    const takers = members.filter((m) => subs.get(m).has(topic));
    if (takers.length === 0) continue;
    for (let p = 0; p < req.topics[topic].numPartitions; p++) {
      const m = takers[turn++ % takers.length];
      (out[m][topic] ||= []).push(p);
    }
  }
  process.stdout.write(JSON.stringify({ assignment: out }) + '\n');
} else {
  const members = req.members.map((m) => m.memberId);
  const active = Object.fromEntries(members.map((m) => [m, {}]));
  const standby = Object.fromEntries(members.map((m) => [m, {}]));
  let turn = 0;
  for (const s of req.subtopologies) {
    for (let p = 0; p < s.numTasks; p++) {
      const m = members[turn++ % members.length];
      (active[m][s.subtopologyId] ||= []).push(p);
    }
  }
  process.stdout.write(JSON.stringify({ active, standby }) + '\n');
}
