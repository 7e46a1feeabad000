insert into account (id, owner, balance) values (1, 'Alice', 1000.00);
insert into account (id, owner, balance) values (2, 'Bob', 1000.00);
insert into account (id, owner, balance) values (3, 'Carol', 1000.00);
