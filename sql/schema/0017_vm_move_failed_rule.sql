-- 0017: why a heal failed (issue 52 item 9): failed_rule is the rule that
-- left a healing failure's last attempt no machine (the engine's rejection
-- reason, as placement.reason for a rejected arrival); NULL for a heal that
-- landed and for runs stored before.
ALTER TABLE vm_move ADD COLUMN failed_rule VARCHAR;
