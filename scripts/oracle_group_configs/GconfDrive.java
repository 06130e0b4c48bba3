package org.apache.kafka.coordinator.group;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

// The oracle's serve loop plus {"cmd":"groupConfig","groupId":G,"configs":{...}}: what the broker's
// ConfigHandler hands GroupCoordinatorService.updateGroupConfig. One reply line per input line:
// {"response":..., "timers":{key: deadline}}.
public class GconfDrive {
    public static void main(String[] a) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        OracleHarness h = null;
        java.lang.reflect.Field f = GroupMetadataManager.class.getDeclaredField("groupConfigManager");
        f.setAccessible(true);
        for (String raw; (raw = in.readLine()) != null; ) {
            if (raw.isBlank()) continue;
            ObjectNode reply = OracleHarness.NF.objectNode();
            try {
                JsonNode ev = OracleHarness.MAPPER.readTree(raw);
                if (ev.has("header")) h = new OracleHarness(OracleHarness.configsOf(ev));
                else if (ev.has("cmd")) {
                    Properties p = new Properties();
                    ev.get("configs").fields().forEachRemaining(e -> p.put(e.getKey(), e.getValue().asText()));
                    ((GroupConfigManager) f.get(h.gmm)).updateGroupConfig(ev.get("groupId").asText(), p);
                } else {
                    h.advanceTo(ev.get("tsMs").asLong());
                    if (ev.has("topic")) h.topicEvent(ev.get("topic"));
                    else if (ev.has("requestHeader")) {
                        OracleHarness.Call c = h.call(ev, 0);
                        if (c.response != null) reply.set("response", c.response);
                    }
                }
                ObjectNode tl = reply.putObject("timers");
                if (h != null) for (OracleHarness.TimerEntry e : h.timer.entries.values()) tl.put(e.key, e.deadline);
                reply.put("ok", true);
            } catch (Exception e) {
                reply.put("ok", false);
                reply.put("error", e.toString());
            }
            System.out.println(OracleHarness.MAPPER.writeValueAsString(reply));
        }
    }
}
