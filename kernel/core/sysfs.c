// SPDX-License-Identifier: GPL-2.0
/*
 * rnic: software RDMA NIC - a device's directory /sys/class/rnic/NAME/.
 *
 * Its own attributes (abi_version, uverbs, node_guid, netdev, net_ns), and
 * the files the in-kernel stack has in /sys/class/infiniband/NAME/ that
 * programs read through ibv_device.ibdev_path (rdma-core's ibv_devinfo,
 * UCX, perftest), in the same layout and format: node_type, fw_ver,
 * board_id and ports/1/ (see "rnic sysfs" in rnic-abi.h).
 *
 * The device's attributes are the class's groups: the driver core adds
 * them with the device and removes them with it. ports/, ports/1/ and
 * ports/1/gid_attrs/ are kobjects, made by rnic_sysfs_add() once the
 * device is in sysfs and deleted by rnic_sysfs_del() in the first step of
 * its removal; gids/, hw_counters/, types/ and ndevs/ are named groups of
 * the last two. Deleting a kobject waits for its reads in progress, so no
 * read runs after the first step of a removal, long before the struct is
 * freed. The reads take only spinlocks, never rtnl_lock or rnic_devs_lock
 * that the removal holds while it waits for them.
 *
 * The attributes of ports/1/ and below are shared by every device: their
 * kobject's parents lead to the device, and the entry's index is the
 * attribute's place in its table.
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "rnic.h"

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RNIC_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

static ssize_t uverbs_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "uverbs%u\n",
			  RNIC_UVERBS_BASE + to_rnic_dev(dev)->index);
}
static DEVICE_ATTR_RO(uverbs);

static ssize_t node_guid_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	u64 guid = be64_to_cpu(to_rnic_dev(dev)->node_guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (u16)(guid >> 48), (u16)(guid >> 32),
			  (u16)(guid >> 16), (u16)guid);
}
static DEVICE_ATTR_RO(node_guid);

/* One device is the whole system: its image GUID is its node GUID. */
static ssize_t sys_image_guid_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return node_guid_show(dev, attr, buf);
}
static DEVICE_ATTR_RO(sys_image_guid);

static ssize_t netdev_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct rnic_dev *rdev = to_rnic_dev(dev);
	char name[IFNAMSIZ];

	spin_lock_bh(&rnic_bind_lock);
	strscpy(name, rdev->netdev_name, sizeof(name));
	spin_unlock_bh(&rnic_bind_lock);
	return sysfs_emit(buf, "%s\n", name);
}
static DEVICE_ATTR_RO(netdev);

/*
 * The inode number of the device's network namespace, as stat() of
 * /proc/PID/ns/net gives it: librnic lists only its caller's devices.
 * rnic_bind_lock keeps @net from changing under us (a netdev move), and
 * the namespace is alive while the attribute is: its removal (step 1,
 * cdev_device_del()) waits for this read and comes before the namespace
 * is gone. Not rnic_devs_lock, which that removal holds.
 */
static ssize_t net_ns_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct rnic_dev *rdev = to_rnic_dev(dev);
	unsigned int inum;

	spin_lock_bh(&rnic_bind_lock);
	inum = rnic_dev_net(rdev)->ns.inum;
	spin_unlock_bh(&rnic_bind_lock);
	return sysfs_emit(buf, "%u\n", inum);
}
static DEVICE_ATTR_RO(net_ns);

/* IBV_NODE_CA, a channel adapter, as the in-kernel stack names it */
static ssize_t node_type_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "1: CA\n");
}
static DEVICE_ATTR_RO(node_type);

static ssize_t fw_ver_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, RNIC_FW_VER_FMT "\n",
			  RNIC_FW_VER_MAJOR(RNIC_FW_VERSION),
			  RNIC_FW_VER_MINOR(RNIC_FW_VERSION),
			  RNIC_FW_VER_PATCH(RNIC_FW_VERSION));
}
static DEVICE_ATTR_RO(fw_ver);

/* No board: the name of the software that is the device. */
static ssize_t board_id_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "rnic\n");
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *rnic_dev_attrs[] = {
	&dev_attr_abi_version.attr,
	&dev_attr_uverbs.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_sys_image_guid.attr,
	&dev_attr_netdev.attr,
	&dev_attr_net_ns.attr,
	&dev_attr_node_type.attr,
	&dev_attr_fw_ver.attr,
	&dev_attr_board_id.attr,
	NULL,
};

static const struct attribute_group rnic_dev_group = {
	.attrs = rnic_dev_attrs,
};

const struct attribute_group *rnic_dev_groups[] = {
	&rnic_dev_group,
	NULL,
};

/* The device of ports/1/: its parent is ports/, whose parent is the device. */
static struct rnic_dev *rnic_port_kobj_dev(struct kobject *port)
{
	return to_rnic_dev(kobj_to_dev(port->parent->parent));
}

static u8 rnic_port_kobj_state(struct kobject *port)
{
	struct rnic_port *p = &rnic_port_kobj_dev(port)->port;
	u8 state;

	spin_lock_bh(&p->lock);
	state = p->state;
	spin_unlock_bh(&p->lock);
	return state;
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	u8 state = rnic_port_kobj_state(kobj);

	return sysfs_emit(buf, "%u: %s\n", state,
			  state == RNIC_PORT_ACTIVE ? "ACTIVE" : "DOWN");
}

static struct kobj_attribute rnic_state_attr = __ATTR_RO(state);

static ssize_t phys_state_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	u8 phys = rnic_port_phys_state(rnic_port_kobj_state(kobj));

	return sysfs_emit(buf, "%u: %s\n", phys,
			  phys == RNIC_PHYS_LINK_UP ? "LinkUp" : "Disabled");
}

static struct kobj_attribute rnic_phys_state_attr = __ATTR_RO(phys_state);

static ssize_t rate_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, RNIC_PORT_RATE "\n");
}

static struct kobj_attribute rnic_rate_attr = __ATTR_RO(rate);

/* RNIC_LINK_LAYER_ETH, as the in-kernel stack names it */
static ssize_t link_layer_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "Ethernet\n");
}

static struct kobj_attribute rnic_link_layer_attr = __ATTR_RO(link_layer);

/*
 * The InfiniBand subnet's fields, which RoCE has none of: no LID, no
 * subnet manager. The values ibv_query_port() gives, in ib_core's format.
 */
static ssize_t rnic_no_lid_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x0\n");
}

static ssize_t rnic_zero_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0\n");
}

static struct kobj_attribute rnic_lid_attr =
	__ATTR(lid, 0444, rnic_no_lid_show, NULL);
static struct kobj_attribute rnic_sm_lid_attr =
	__ATTR(sm_lid, 0444, rnic_no_lid_show, NULL);
static struct kobj_attribute rnic_sm_sl_attr =
	__ATTR(sm_sl, 0444, rnic_zero_show, NULL);
static struct kobj_attribute rnic_lid_mask_count_attr =
	__ATTR(lid_mask_count, 0444, rnic_zero_show, NULL);

static ssize_t cap_mask_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "0x%08x\n", (u32)RNIC_PORT_CAP_FLAGS);
}

static struct kobj_attribute rnic_cap_mask_attr = __ATTR_RO(cap_mask);

static struct attribute *rnic_port_attrs[] = {
	&rnic_state_attr.attr,
	&rnic_phys_state_attr.attr,
	&rnic_rate_attr.attr,
	&rnic_link_layer_attr.attr,
	&rnic_lid_attr.attr,
	&rnic_sm_lid_attr.attr,
	&rnic_sm_sl_attr.attr,
	&rnic_lid_mask_count_attr.attr,
	&rnic_cap_mask_attr.attr,
	NULL,
};

/* The P_Key table: its one entry, ports/1/pkeys/0. */
static ssize_t rnic_pkey_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", RNIC_PKEY_DEFAULT);
}

static struct kobj_attribute rnic_pkey_attr = __ATTR(0, 0444, rnic_pkey_show,
						     NULL);

static struct attribute *rnic_pkey_attrs[] = {
	&rnic_pkey_attr.attr,
	NULL,
};

/*
 * The files of the GID table and of the counters: ports/1/gids/N,
 * ports/1/gid_attrs/{types,ndevs}/N and ports/1/hw_counters/NAME, one
 * table of each, filled in by rnic_sysfs_init().
 */
static char rnic_index_names[RNIC_GID_TABLE_LEN][3];
static_assert(RNIC_GID_TABLE_LEN <= 100);

static struct kobj_attribute rnic_gid_attrs[RNIC_GID_TABLE_LEN];
static struct kobj_attribute rnic_gid_type_attrs[RNIC_GID_TABLE_LEN];
static struct kobj_attribute rnic_gid_ndev_attrs[RNIC_GID_TABLE_LEN];
static struct attribute *rnic_gid_list[RNIC_GID_TABLE_LEN + 1];
static struct attribute *rnic_gid_type_list[RNIC_GID_TABLE_LEN + 1];
static struct attribute *rnic_gid_ndev_list[RNIC_GID_TABLE_LEN + 1];

static const char * const rnic_counter_names[] = RNIC_NL_COUNTER_NAMES;
static_assert(ARRAY_SIZE(rnic_counter_names) == __RNIC_NL_COUNTER_MAX);
/* Entry 0 is counter 1: RNIC_NL_COUNTER_UNSPEC counts nothing. */
static struct kobj_attribute rnic_counter_attrs[RNIC_NL_COUNTER_MAX];
static struct attribute *rnic_counter_list[RNIC_NL_COUNTER_MAX + 1];

/* GID table entry @index of the port whose ports/1/ is @port. */
static struct rnic_gid rnic_port_kobj_gid(struct kobject *port,
					  unsigned int index)
{
	struct rnic_port *p = &rnic_port_kobj_dev(port)->port;
	struct rnic_gid gid;

	spin_lock_bh(&p->lock);
	gid = p->gids[index];
	spin_unlock_bh(&p->lock);
	return gid;
}

/* An empty entry reads as the zero GID, as ibv_query_gid() gives it. */
static ssize_t rnic_gid_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	struct rnic_gid gid = rnic_port_kobj_gid(kobj, attr - rnic_gid_attrs);

	if (!gid.valid)
		memset(gid.raw, 0, sizeof(gid.raw));
	return sysfs_emit(buf, "%pI6\n", gid.raw);
}

/* @kobj is ports/1/gid_attrs/: EINVAL for an empty entry, as ib_core. */
static ssize_t rnic_gid_type_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	unsigned int index = attr - rnic_gid_type_attrs;

	if (!rnic_port_kobj_gid(kobj->parent, index).valid)
		return -EINVAL;
	return sysfs_emit(buf, "RoCE v2\n");
}

/*
 * Every GID of a bound device is one of its netdev's (entry 0, the
 * link-local one, included); an unbound device's entries have none.
 */
static ssize_t rnic_gid_ndev_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct rnic_dev *rdev = rnic_port_kobj_dev(kobj->parent);
	unsigned int index = attr - rnic_gid_ndev_attrs;
	struct rnic_port *p = &rdev->port;
	char name[IFNAMSIZ] = "";

	spin_lock_bh(&rnic_bind_lock);
	spin_lock_bh(&p->lock);
	if (rdev->netdev && p->gids[index].valid)
		strscpy(name, rdev->netdev_name, sizeof(name));
	spin_unlock_bh(&p->lock);
	spin_unlock_bh(&rnic_bind_lock);
	if (!name[0])
		return -EINVAL;
	return sysfs_emit(buf, "%s\n", name);
}

static ssize_t rnic_counter_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	enum rnic_nl_counter c = attr - rnic_counter_attrs + 1;

	return sysfs_emit(buf, "%llu\n",
			  rnic_dev_counter(rnic_port_kobj_dev(kobj), c));
}

static const struct attribute_group rnic_port_group = {
	.attrs = rnic_port_attrs,
};

static const struct attribute_group rnic_gids_group = {
	.name = "gids",
	.attrs = rnic_gid_list,
};

static const struct attribute_group rnic_counters_group = {
	.name = "hw_counters",
	.attrs = rnic_counter_list,
};

static const struct attribute_group rnic_pkeys_group = {
	.name = "pkeys",
	.attrs = rnic_pkey_attrs,
};

static const struct attribute_group *rnic_port_groups[] = {
	&rnic_port_group,
	&rnic_gids_group,
	&rnic_pkeys_group,
	&rnic_counters_group,
	NULL,
};

static const struct attribute_group rnic_gid_types_group = {
	.name = "types",
	.attrs = rnic_gid_type_list,
};

static const struct attribute_group rnic_gid_ndevs_group = {
	.name = "ndevs",
	.attrs = rnic_gid_ndev_list,
};

static const struct attribute_group *rnic_gid_attr_groups[] = {
	&rnic_gid_types_group,
	&rnic_gid_ndevs_group,
	NULL,
};

static void rnic_attr_init(struct kobj_attribute *ka, struct attribute **slot,
			   const char *name,
			   ssize_t (*show)(struct kobject *kobj,
					   struct kobj_attribute *attr,
					   char *buf))
{
	sysfs_attr_init(&ka->attr);
	ka->attr.name = name;
	ka->attr.mode = 0444;
	ka->show = show;
	*slot = &ka->attr;
}

/**
 * rnic_sysfs_init() - fill in the tables of the files of ports/1/
 *
 * Context: module init, before any device exists.
 */
void __init rnic_sysfs_init(void)
{
	unsigned int i;

	for (i = 0; i < RNIC_GID_TABLE_LEN; i++) {
		snprintf(rnic_index_names[i], sizeof(rnic_index_names[i]),
			 "%u", i);
		rnic_attr_init(&rnic_gid_attrs[i], &rnic_gid_list[i],
			       rnic_index_names[i], rnic_gid_show);
		rnic_attr_init(&rnic_gid_type_attrs[i], &rnic_gid_type_list[i],
			       rnic_index_names[i], rnic_gid_type_show);
		rnic_attr_init(&rnic_gid_ndev_attrs[i], &rnic_gid_ndev_list[i],
			       rnic_index_names[i], rnic_gid_ndev_show);
	}
	for (i = 0; i < RNIC_NL_COUNTER_MAX; i++)
		rnic_attr_init(&rnic_counter_attrs[i], &rnic_counter_list[i],
			       rnic_counter_names[i + 1], rnic_counter_show);
}

/* A directory @name in @parent with @groups (or none); NULL if not made. */
static struct kobject *rnic_sysfs_dir(struct kobject *parent, const char *name,
				      const struct attribute_group **groups)
{
	struct kobject *kobj = kobject_create_and_add(name, parent);

	if (kobj && sysfs_create_groups(kobj, groups)) {
		kobject_put(kobj);
		kobj = NULL;
	}
	return kobj;
}

/**
 * rnic_sysfs_add() - make the directory ports/ of a device
 * @rdev: a device in sysfs (its char device added), not yet published
 *
 * Context: process. On failure, rnic_sysfs_del() deletes what was made.
 * Return: 0 or -ENOMEM.
 */
int rnic_sysfs_add(struct rnic_dev *rdev)
{
	rdev->sysfs_ports = rnic_sysfs_dir(&rdev->dev.kobj, "ports", NULL);
	if (!rdev->sysfs_ports)
		return -ENOMEM;
	rdev->sysfs_port = rnic_sysfs_dir(rdev->sysfs_ports, "1",
					  rnic_port_groups);
	if (!rdev->sysfs_port)
		return -ENOMEM;
	rdev->sysfs_gid_attrs = rnic_sysfs_dir(rdev->sysfs_port, "gid_attrs",
					       rnic_gid_attr_groups);
	if (!rdev->sysfs_gid_attrs)
		return -ENOMEM;
	return 0;
}

/**
 * rnic_sysfs_del() - delete the directory ports/ of a device
 * @rdev: the device
 *
 * When it returns, no read of a file below ports/ runs or starts.
 *
 * Context: process; may hold rtnl_lock and rnic_devs_lock (the reads take
 * neither).
 */
void rnic_sysfs_del(struct rnic_dev *rdev)
{
	/* Children first; both calls do nothing for NULL. */
	kobject_del(rdev->sysfs_gid_attrs);
	kobject_put(rdev->sysfs_gid_attrs);
	kobject_del(rdev->sysfs_port);
	kobject_put(rdev->sysfs_port);
	kobject_del(rdev->sysfs_ports);
	kobject_put(rdev->sysfs_ports);
}
