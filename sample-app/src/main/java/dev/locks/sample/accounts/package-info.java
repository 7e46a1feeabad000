/**
 * Accounts and transfers: {@link dev.locks.sample.accounts.AccountService#transfer} locks both accounts
 * (in one global order, so transfers both ways never deadlock) around its transaction, and writes with the
 * lease's fencing token.
 */
package dev.locks.sample.accounts;
