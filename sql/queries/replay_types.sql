-- replay_types: the VM type names of a dataset. $1 = dataset.
SELECT vm_type FROM vm_type WHERE dataset = $1 ORDER BY vm_type;
