import java.io.*;
import java.util.*;
import org.apache.kafka.coordinator.group.*;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;

// Each stdin line: BROKER<TAB>GROUP, both "k=v;k=v". Prints one line: OK, or the exception's class and message.
public class Probe41 {
    static Map<String, String> parse(String s) {
        Map<String, String> m = new LinkedHashMap<>();
        if (s.isEmpty()) return m;
        for (String kv : s.split(";")) { int i = kv.indexOf('='); m.put(kv.substring(0, i), kv.substring(i + 1)); }
        return m;
    }
    public static void main(String[] a) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            String[] parts = line.split("\t", -1);
            try {
                Map<String, Object> props = new HashMap<>(parse(parts[0]));
                GroupCoordinatorConfig config = GroupCoordinatorConfig.fromProps(props);
                org.apache.kafka.common.config.ConfigDef def = new org.apache.kafka.common.config.ConfigDef(ShareGroupConfig.CONFIG_DEF);
                GroupCoordinatorConfig.CONFIG_DEF.configKeys().values().forEach(k -> { if (!def.configKeys().containsKey(k.name)) def.define(k); });
                ShareGroupConfig share = new ShareGroupConfig(new org.apache.kafka.common.config.AbstractConfig(def, props, false));
                if (parts.length > 1 && !parts[1].equals("-")) { Properties gp = new Properties(); gp.putAll(parse(parts[1])); GroupConfig.validate(gp, config, share); }
                System.out.println("OK");
            } catch (Throwable t) {
                System.out.println(t.getClass().getSimpleName() + ": " + t.getMessage());
            }
        }
    }
}
