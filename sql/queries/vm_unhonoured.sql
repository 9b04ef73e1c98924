-- vm_unhonoured: the VMs of a load with a constraint placelab does not
-- model, and which ('; '-separated, vm_constraint.unhonoured). $1 = load_id.
SELECT vm_id, unhonoured FROM vm_constraint WHERE load_id = $1 AND unhonoured IS NOT NULL ORDER BY vm_id;
